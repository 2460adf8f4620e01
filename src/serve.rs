//! A small static file server for the web page (`viewer serve`): files
//! under one folder, on 127.0.0.1 only, GET and HEAD. Enough to open
//! `web/dist` in a browser, which refuses to run WebAssembly from `file://`;
//! any static host serves the same folder.
//!
//! HTTP is hyper's (HTTP/1.1, one request per connection) on a tokio
//! runtime of one thread: an idle connection costs a socket and a few
//! kilobytes, never a thread. At most [`MAX_CONNECTIONS`] are open at once
//! (more wait in the kernel's queue, or are closed when the process runs out
//! of descriptors), a connection that has not sent its request head within
//! [`HEAD_TIMEOUT`] is closed, and none lives longer than
//! [`CONNECTION_TIMEOUT`]. Thousands of idle connections therefore neither
//! exhaust the process nor keep a real request out for long.

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::net::{SocketAddr, TcpListener};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The largest request head read (request line and headers); hyper's least.
const MAX_HEAD: usize = 16 * 1024;
/// How long a connection may take to send its request head.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one connection may last, answer included.
pub const CONNECTION_TIMEOUT: Duration = Duration::from_secs(120);
/// The most connections served at once; the others wait to be accepted.
pub const MAX_CONNECTIONS: usize = 4096;

/// A bound server for the files under a folder.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    root: PathBuf,
}

impl Server {
    /// Binds 127.0.0.1:`port` (0: any free port) for the files under `root`,
    /// which must be a folder.
    pub fn bind(root: &Path, port: u16) -> std::io::Result<Server> {
        let root = root.canonicalize()?;
        if !root.is_dir() {
            return Err(std::io::Error::other(format!(
                "{} is not a folder",
                root.display()
            )));
        }
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        Ok(Server { listener, root })
    }

    /// The address bound.
    pub fn addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The page's address: `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> std::io::Result<String> {
        Ok(format!("http://{}/", self.addr()?))
    }

    /// Serves until the process ends, on the calling thread.
    pub fn run(self) -> std::io::Result<()> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        self.listener.set_nonblocking(true)?;
        let root = Arc::new(self.root);
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(self.listener)?;
            let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
            loop {
                // Wait for a free slot before accepting: past the cap, new
                // connections queue in the kernel instead of costing memory here.
                let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
                    return Ok(());
                };
                let stream = match listener.accept().await {
                    Ok((stream, _)) => stream,
                    // Out of descriptors (or a connection reset before it was
                    // accepted): wait for idle connections to time out.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let root = Arc::clone(&root);
                tokio::spawn(async move {
                    let _slot = slot;
                    let service = hyper::service::service_fn(move |request| {
                        let root = Arc::clone(&root);
                        async move { Ok::<_, std::convert::Infallible>(answer(&request, &root)) }
                    });
                    let connection = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(HEAD_TIMEOUT)
                        .keep_alive(false)
                        .title_case_headers(true)
                        .max_buf_size(MAX_HEAD)
                        .serve_connection(TokioIo::new(stream), service);
                    // A client that hung up, sent garbage or dawdled only loses its answer.
                    let _ = tokio::time::timeout(CONNECTION_TIMEOUT, connection).await;
                });
            }
        })
    }
}

/// The answer to one request.
fn answer(request: &Request<Incoming>, root: &Path) -> Response<Full<Bytes>> {
    let method = request.method();
    if method != Method::GET && method != Method::HEAD {
        return respond(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain",
            b"GET or HEAD only\n".to_vec(),
        );
    }
    let not_found = || respond(StatusCode::NOT_FOUND, "text/plain", b"not found\n".to_vec());
    let Some(path) = resolve(root, request.uri().path()) else {
        return not_found();
    };
    match std::fs::read(&path) {
        Ok(body) => respond(StatusCode::OK, mime(&path), body),
        Err(_) => not_found(),
    }
}

/// A whole response (hyper sends a HEAD's without its body).
fn respond(status: StatusCode, mime: &str, body: Vec<u8>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    for (name, value) in [
        (hyper::header::CONTENT_TYPE, mime),
        (hyper::header::CACHE_CONTROL, "no-cache"),
        (hyper::header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ] {
        if let Ok(value) = hyper::header::HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    }
    response
}

/// The file under `root` a request target names (`/` and folders: their
/// `index.html`), or `None` for one outside `root`, not percent-decodable,
/// or missing. Only plain path components are followed, and the file found
/// must still lie under `root` once links are resolved.
pub fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?;
    let decoded = percent_decode(path.strip_prefix('/')?)?;
    let relative = Path::new(&decoded);
    if !relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let mut file = root.join(relative);
    if file.is_dir() {
        file.push("index.html");
    }
    let file = file.canonicalize().ok()?;
    (file.starts_with(root) && file.is_file()).then_some(file)
}

/// `%XX` escapes decoded; `None` for a bad escape, a NUL or text that is not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    if out.contains(&0) {
        return None;
    }
    String::from_utf8(out).ok()
}

/// The MIME type a browser needs for `path` (WebAssembly streams only as
/// `application/wasm`; modules only as JavaScript).
pub fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::{Server, mime, resolve};
    use std::io::{Read, Write};
    use std::path::Path;

    fn site() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("index.html"), "<p>hi</p>").unwrap();
        std::fs::create_dir(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("pkg/a b.wasm"), b"\0asm").unwrap();
        dir
    }

    #[test]
    fn paths_stay_inside_the_folder() {
        let dir = site();
        let root = dir.path().canonicalize().unwrap();
        assert_eq!(resolve(&root, "/"), Some(root.join("index.html")));
        assert_eq!(
            resolve(&root, "/index.html?x=1"),
            Some(root.join("index.html"))
        );
        assert_eq!(
            resolve(&root, "/pkg/a%20b.wasm"),
            Some(root.join("pkg/a b.wasm"))
        );
        for escape in [
            "/../etc/passwd",
            "/pkg/../../x",
            "/%2e%2e/x",
            "//etc/passwd",
            "/a%00",
            "/%zz",
        ] {
            assert_eq!(resolve(&root, escape), None, "{escape}");
        }
        assert_eq!(resolve(&root, "/missing.js"), None);
        assert_eq!(resolve(&root, "no-slash"), None);
    }

    #[test]
    fn browsers_get_the_types_they_insist_on() {
        assert_eq!(mime(Path::new("x/y_bg.wasm")), "application/wasm");
        assert_eq!(
            mime(Path::new("index.js")),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(mime(Path::new("index.html")), "text/html; charset=utf-8");
        assert_eq!(mime(Path::new("data.bin")), "application/octet-stream");
    }

    #[test]
    fn a_request_gets_the_file_with_its_type() {
        let dir = site();
        let server = Server::bind(dir.path(), 0).unwrap();
        let addr = server.addr().unwrap();
        std::thread::spawn(move || server.run());
        let get = |target: &str| {
            let mut stream = std::net::TcpStream::connect(addr).unwrap();
            write!(stream, "GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
            let mut reply = Vec::new();
            stream.read_to_end(&mut reply).unwrap();
            reply
        };
        let wasm = get("/pkg/a%20b.wasm");
        let text = String::from_utf8_lossy(&wasm);
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
        assert!(text.contains("Content-Type: application/wasm\r\n"));
        assert!(wasm.ends_with(b"\r\n\r\n\0asm"));
        let escape = String::from_utf8(get("/../../etc/passwd")).unwrap();
        assert!(escape.starts_with("HTTP/1.1 404"), "{escape}");
    }
}
