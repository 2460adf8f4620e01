//! The `viewer` command: see `viewer --help`. The application around the
//! `motion-viewer` library: argument parsing ([`cli`]), the desktop's side of
//! the window ([`desktop`]), the throughput measurements ([`mod@bench`]) and the
//! web page's file server ([`serve`]) and the rasteriser of `viewer plot
//! --out x.png` ([`raster`]).

mod bench;
mod cli;
mod desktop;
mod raster;
mod serve;

fn main() -> std::process::ExitCode {
    cli::main()
}
