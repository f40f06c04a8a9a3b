//! A tour of the Agent Memory API on a directory given as the first argument.
use memory_core::{AgentMemory, ManualRegistration, OrganizeOptions, SessionUpdate};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args().nth(1).unwrap_or_else(|| "memory".into());
    let memory = AgentMemory::open(&root)?;
    let a = memory.register_session_start("cursor-main-agent")?;
    let b = memory.register_session_start("cursor-main-agent")?;
    memory.update(
        a.as_str(),
        SessionUpdate::new()
            .topic("Login | auth")
            .summary("Found the bug.")
            .decision("Use bcrypt")
            .question("Which cost?")
            .next_action("Write a test")
            .file("src/login.rs"),
    )?;
    memory.update(
        a.as_str(),
        SessionUpdate::new()
            .context("Fix merged.")
            .decision("Use argon2")
            .supersede("bcrypt")
            .resolve("cost")
            .done("test"),
    )?;
    let c = memory.register_manual(
        ManualRegistration::new("other-agent", "Follow-up", "Continuing.")
            .continues_from(a.as_str()),
    )?;
    println!("{a} {b} {c}");
    println!("{:?}", memory.organize(OrganizeOptions::default())?);
    Ok(())
}
