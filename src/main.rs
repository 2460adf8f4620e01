//! The `viewer` command: see `viewer --help`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
