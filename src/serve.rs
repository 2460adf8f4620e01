//! A small static file server for the web page (`viewer serve`): files
//! under one folder, on 127.0.0.1 only, GET and HEAD, one thread per
//! connection. Enough to open `web/dist` in a browser, which refuses to run
//! WebAssembly from `file://`; any static host serves the same folder.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

/// The longest request head read (request line and headers).
const MAX_HEAD: u64 = 16 * 1024;
/// How long a connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

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

    /// Serves until the process ends; each connection on a thread of its own.
    pub fn run(self) {
        for stream in self.listener.incoming().flatten() {
            let root = self.root.clone();
            std::thread::spawn(move || {
                // A client that hung up or sent garbage only loses its answer.
                let _ = answer(stream, &root);
            });
        }
    }
}

/// Reads one request from `stream` and answers it.
fn answer(mut stream: TcpStream, root: &Path) -> std::io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let mut reader = BufReader::new((&stream).take(MAX_HEAD));
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // The headers are read and ignored (a request head ends with an empty line).
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let mut words = request_line.split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    if method != "GET" && method != "HEAD" {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            b"GET or HEAD only\n",
            true,
        );
    }
    let Some(path) = resolve(root, target) else {
        return respond(
            &mut stream,
            "404 Not Found",
            "text/plain",
            b"not found\n",
            true,
        );
    };
    match std::fs::read(&path) {
        Ok(body) => respond(&mut stream, "200 OK", mime(&path), &body, method == "GET"),
        Err(_) => respond(
            &mut stream,
            "404 Not Found",
            "text/plain",
            b"not found\n",
            true,
        ),
    }
}

/// Writes a whole response; `with_body` false answers a HEAD.
fn respond(
    stream: &mut TcpStream,
    status: &str,
    mime: &str,
    body: &[u8],
    with_body: bool,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {mime}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    if with_body {
        stream.write_all(body)?;
    }
    stream.flush()
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
