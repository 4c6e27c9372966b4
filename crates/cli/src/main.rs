//! `partner-platform`: the one binary. `server` runs the gateway (`--dev` for a zero-config
//! demo), `admin` manages tenants and service credentials in a data directory, and the client
//! commands (`login`, `query` …, in `client/`) call a running gateway over HTTP.

mod admin;
mod apps;
mod client;
mod config;
mod connection;
mod dev;
mod intelligence;
mod listings;
mod logging;
mod people;
mod policy;
mod serve;
mod sim;
mod world;

use std::process::ExitCode;

/// mimalloc rather than the system allocator: a request's many small allocations (headers,
/// JSON, the principal) cost about a third less time with it (`bench/RESULTS.md`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "partner-platform",
    version,
    about = "One OAuth bearer credential over a tenant's warehouse, marketplace accounts and brand memory"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the gateway (`--dev` starts a demo tenant with no configuration).
    Server(Box<config::ServerArgs>),
    /// Manage tenants and service credentials.
    Admin(admin::AdminArgs),
    /// Generate demo worlds.
    World(world::WorldArgs),
    /// Run the sandbox provider (LWA, selling-side and advertising APIs) over a demo world.
    Sim(sim::SimArgs),
    #[command(flatten)]
    Client(client::ClientCommand),
}

/// A command whose output is piped into `head` (or anything that stops reading) ends quietly
/// when the pipe closes, as command-line tools do, instead of panicking on the write. The
/// server and the sandbox keep Rust's default (the signal ignored, the write's error handled),
/// so a client that goes away never takes them down.
fn quiet_on_closed_pipe() {
    // SAFETY: setting a signal's disposition to the default has no preconditions; it happens
    // before any thread is started.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.format(&mut Cli::command()).exit(),
    };
    if !matches!(cli.command, Command::Server(_) | Command::Sim(_)) {
        quiet_on_closed_pipe();
    }
    let result = match cli.command {
        Command::Client(c) => return client::run(c),
        Command::Server(args) => {
            let given = matches
                .subcommand_matches("server")
                .map(config::Given::of)
                .unwrap_or_default();
            serve::run(*args, given)
        }
        Command::Admin(args) => admin::run(args),
        Command::World(args) => world::run(args),
        Command::Sim(args) => sim::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}
