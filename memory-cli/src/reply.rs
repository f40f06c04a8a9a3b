//! What one `memcore` invocation returns, for printing.

use crate::agent::AgentReply;
use crate::context::ContextReply;
use crate::topics::TopicsReply;

/// The typed result of one verb of one model. One value per process: its size does not
/// matter, and boxing it would only add noise.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Reply {
    /// An `agent` verb's result.
    Agent(AgentReply),
    /// A `context` verb's result.
    Context(ContextReply),
    /// A `topics` verb's result.
    Topics(TopicsReply),
}
