//! The compactor of the Promise forms `StructuredMemory.rememberAsync` and
//! `compactAsync`: the core runs on a libuv worker thread and calls the compactor there,
//! under the directory's lock; each call is posted to the JS thread through a
//! [`ThreadsafeFunction`] and the worker blocks until the answer arrives.
//!
//! `index.js` wraps every compactor function as an `async (topicJson, argsJson) =>
//! resultJson` that never rejects: it awaits what the caller's function returns (a value
//! or a Promise), keeps a throw or a rejection for itself (the Promise form then rejects
//! with that very value) and answers [`THREW`]. So the worker waits first for the JS
//! thread to have called the function (a channel), then for its Promise to settle
//! ([`wait`]). The JS thread is never blocked by the worker: it only runs the calls and
//! settles the Promises, so the two cannot deadlock. (A sync call on the same directory
//! made from inside a compactor function would wait for the lock the worker holds, up to
//! its lock timeout.)

use std::future::Future;
use std::sync::Arc;
use std::sync::mpsc;
use std::task::{Context, Poll, Wake, Waker};

use napi::bindgen_prelude::{FnArgs, Promise, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};

use crate::args::Arg;
use crate::structured_compactor::{Calls, JsCompactor, functions};

/// One compactor function, callable from any thread.
type Remote = ThreadsafeFunction<
    FnArgs<(String, String)>,
    Promise<String>,
    FnArgs<(String, String)>,
    Status,
    false,
>;

/// The wrapped functions of a Promise form (see the module docs).
pub struct AsyncCalls {
    methods: [Option<Remote>; 6],
}

impl JsCompactor<AsyncCalls> {
    /// Reads `options.compactor` (`undefined`/`null` for the default) for a Promise form,
    /// on the JS thread: each function becomes a [`ThreadsafeFunction`], released when the
    /// attempt is over.
    pub fn read_async(value: Option<Unknown<'_>>, name: &'static str) -> Arg<Option<Self>> {
        let Some((found, function)) = functions::<Promise<String>>(value, name)? else {
            return Ok(None);
        };
        let mut methods: [Option<Remote>; 6] = [None, None, None, None, None, None];
        for (slot, method) in found.into_iter().enumerate() {
            if let Some(method) = method {
                methods[slot] = Some(
                    method
                        .build_threadsafe_function::<FnArgs<(String, String)>>()
                        .build()?,
                );
            }
        }
        Ok(Some(JsCompactor::new(AsyncCalls { methods }, function)))
    }
}

impl Calls for AsyncCalls {
    fn call(&self, slot: usize, topic: String, rest: String) -> Result<Option<String>, String> {
        let Some(remote) = self.methods.get(slot).and_then(Option::as_ref) else {
            return Ok(None);
        };
        let (sender, receiver) = mpsc::channel();
        let status = remote.call_with_return_value(
            (topic, rest).into(),
            ThreadsafeFunctionCallMode::Blocking,
            move |answer: napi::Result<Promise<String>>, _: Env| {
                // The worker may have given up waiting (never: it waits for this); a
                // send to a dropped receiver is not an error of the call.
                let _ = sender.send(answer);
                Ok(())
            },
        );
        if status != Status::Ok {
            return Err(format!("could not be called ({status})"));
        }
        // The callback is dropped without being called when the call could not be made
        // (the environment is shutting down): the channel then reports a disconnect.
        let promise = receiver
            .recv()
            .map_err(|_| "was not called (Node.js is shutting down)".to_string())?
            .map_err(|err| format!("could not be called ({})", err.reason))?;
        wait(promise)
            .map_err(|err| format!("did not answer ({})", err.reason))
            .map(Some)
    }
}

/// Wakes the worker thread parked in [`wait`].
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Blocks the current (worker) thread until `future` is ready. The future here is a
/// [`Promise`] settled by the JS thread, which wakes this thread through the waker.
fn wait<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        // A spurious wake-up only polls again.
        std::thread::park();
    }
}
