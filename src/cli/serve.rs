//! `viewer serve`: the web page (`web/dist`, built by `web/build.sh`) on
//! 127.0.0.1, through [`crate::serve`].

use crate::serve::Server;
use anyhow::{Context, Result, bail};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `viewer serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0: any free one).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The built page (default: `web/dist` here, else in the source tree
    /// this viewer was built from).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn run(args: &ServeArgs) -> Result<()> {
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => [
            PathBuf::from("web/dist"),
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("web/dist"),
        ]
        .into_iter()
        .find(|d| d.join("index.html").is_file())
        .unwrap_or_else(|| PathBuf::from("web/dist")),
    };
    if !dir.join("index.html").is_file() {
        bail!(
            "{} holds no built page; build it with `web/build.sh` (in the source tree)",
            dir.display()
        );
    }
    let server = Server::bind(&dir, args.port)
        .with_context(|| format!("cannot serve on 127.0.0.1:{}", args.port))?;
    println!(
        "serving {} at {} (Ctrl+C stops)",
        dir.display(),
        server.url()?
    );
    std::io::stdout().flush()?;
    server.run();
    Ok(())
}
