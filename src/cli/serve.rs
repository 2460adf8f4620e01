//! `viewer serve`: the web page (`web/dist`, built by `web/build.sh`) on
//! 127.0.0.1, through [`crate::serve`].

use crate::serve::{MAX_CONNECTIONS, Server};
use anyhow::{Context, Result, bail};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `viewer serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0: any free one). At most 4096 connections are
    /// served at once; one that sends no request head within 10 s is closed.
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
    raise_open_files();
    server.run()?;
    Ok(())
}

/// Raises the soft limit on open files toward the hard one, far enough for
/// [`MAX_CONNECTIONS`] at once (many systems start at 1024).
fn raise_open_files() {
    #[cfg(unix)]
    {
        let want = (MAX_CONNECTIONS + 256) as libc::rlim_t;
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit only read and write the struct given.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < want {
                limit.rlim_cur = want.min(limit.rlim_max);
                libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
            }
        }
    }
}
