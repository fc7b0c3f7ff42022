//! The compiled site's files, and the answer for a path nothing else claims.
//!
//! The site does not change while it is served, so its small files (the
//! stylesheet, the scripts, the icon) are read once at start and sent from
//! memory, with the compressed copies the build made beside them. Read from
//! disk, each took four hops to the blocking pool: seven times the bare
//! floor (`make bench`, floor). Larger files (the WASM bundles) are read
//! from disk as they are asked for; there the bytes outweigh the hops. So
//! are `/pkg/` files built after the server started (`make run`).
//! `/pkg/` files named by their content are kept by browsers for good.
//!
//! A path that is no file gets the "not found" page when a browser asks for
//! a page, and a typed 404 otherwise, without rendering anything.

use std::collections::HashMap;
use std::future::Future;
use std::path::Path;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use tower::ServiceExt;
use tower_http::services::ServeDir;

use app::error::AppError;
use app::state::AppState;
use app::ui::pages::not_found::NotFound;

/// Files up to this size are kept in memory.
const KEPT_UP_TO: u64 = 256 * 1024;

/// How long a browser keeps an asset named by its content: a new build
/// names it anew.
pub const FOR_GOOD: &str = "public, max-age=31536000, immutable";

/// The site's files, each kept in memory or known to be on disk.
#[derive(Debug)]
pub struct Site {
    files: HashMap<String, File>,
    disk: ServeDir,
    /// Whether `/pkg/` files are named by their content.
    hashed: bool,
}

#[derive(Debug)]
enum File {
    Kept(Kept),
    OnDisk,
}

/// A file in memory, as the build left it and compressed.
#[derive(Debug)]
struct Kept {
    content_type: HeaderValue,
    etag: HeaderValue,
    plain: Bytes,
    brotli: Option<Bytes>,
    gzip: Option<Bytes>,
}

impl Site {
    /// Reads the site under `root`. A development build rewrites its files
    /// in place while serving (cargo-leptos sets `LEPTOS_WATCH`), so then
    /// every file is read from disk when asked for.
    pub fn load(root: &str, hashed: bool) -> Self {
        let keep_up_to = if std::env::var_os("LEPTOS_WATCH").is_some() {
            0
        } else {
            KEPT_UP_TO
        };
        let mut found = Vec::new();
        list(Path::new(root), "", &mut found);
        let names: std::collections::HashSet<&str> =
            found.iter().map(|(name, _)| name.as_str()).collect();
        let compressed_copy = |name: &str| {
            [".br", ".gz"]
                .iter()
                .any(|ext| name.strip_suffix(ext).is_some_and(|b| names.contains(b)))
        };
        let mut files = HashMap::new();
        for (name, size) in &found {
            if compressed_copy(name) {
                continue;
            }
            let path = Path::new(root).join(&name[1..]);
            let file = match (*size <= keep_up_to).then(|| std::fs::read(&path).ok()) {
                Some(Some(plain)) => File::Kept(Kept::new(name, plain, &path)),
                _ => File::OnDisk,
            };
            files.insert(name.clone(), file);
        }
        let disk = ServeDir::new(root).precompressed_br().precompressed_gzip();
        Site {
            files,
            disk,
            hashed,
        }
    }

    /// The file `request` asks for, or the request back when there is none.
    pub async fn serve(&self, request: Request) -> Result<Response, Request> {
        let path = request.uri().path();
        let for_good = self.hashed && path.starts_with("/pkg/");
        let reads = matches!(*request.method(), Method::GET | Method::HEAD);
        let mut response = match self.files.get(path) {
            Some(File::Kept(kept)) if reads => kept.answer(request.headers()),
            Some(File::OnDisk) if reads => self.read_disk(&request).await,
            Some(_) => {
                let allow = [(header::ALLOW, "GET, HEAD")];
                return Ok((StatusCode::METHOD_NOT_ALLOWED, allow).into_response());
            }
            // `make run` serves before the browser bundles are built, and
            // the build adds them to `/pkg/` meanwhile: look there on disk.
            None if reads && path.starts_with("/pkg/") => {
                let found = self.read_disk(&request).await;
                if found.status() == StatusCode::NOT_FOUND {
                    return Err(request);
                }
                found
            }
            None => return Err(request),
        };
        if for_good && response.status().is_success() {
            let value = HeaderValue::from_static(FOR_GOOD);
            response.headers_mut().insert(header::CACHE_CONTROL, value);
        }
        Ok(response)
    }

    /// The file `request` names, read from disk as it is now.
    fn read_disk(&self, request: &Request) -> impl Future<Output = Response> + Send + 'static {
        // A copy without the body, which the caller keeps for its 404.
        let mut asked = Request::new(Body::empty());
        *asked.method_mut() = request.method().clone();
        *asked.uri_mut() = request.uri().clone();
        *asked.headers_mut() = request.headers().clone();
        let disk = self.disk.clone();
        async move {
            match disk.oneshot(asked).await {
                Ok(response) => response.map(Body::new),
                Err(never) => match never {},
            }
        }
    }
}

impl Kept {
    fn new(name: &str, plain: Vec<u8>, path: &Path) -> Self {
        use sha2::Digest;
        let copy = |ext: &str| {
            let mut copy = path.as_os_str().to_owned();
            copy.push(ext);
            std::fs::read(copy).ok().map(Bytes::from)
        };
        // Weak: the same file goes out plain or compressed, by the build or
        // by the compression layer, and each is the same file to a cache.
        let digest = sha2::Sha256::digest(&plain);
        let etag = format!("W/\"{}\"", hex::encode(&digest[..12]));
        let content_type = mime_guess::from_path(name).first_or_octet_stream();
        Kept {
            content_type: HeaderValue::from_str(content_type.as_ref())
                .unwrap_or(HeaderValue::from_static("application/octet-stream")),
            etag: HeaderValue::from_str(&etag).expect("hex is a header value"),
            brotli: copy(".br"),
            gzip: copy(".gz"),
            plain: Bytes::from(plain),
        }
    }

    /// The file for a client that sent `headers`: unchanged (304) when it
    /// has it already, else in the best encoding it takes.
    fn answer(&self, headers: &HeaderMap) -> Response {
        let mut response = if has_copy(headers, &self.etag) {
            StatusCode::NOT_MODIFIED.into_response()
        } else {
            let (body, encoding) = match (&self.brotli, &self.gzip) {
                (Some(br), _) if takes(headers, "br") => (br.clone(), Some("br")),
                (_, Some(gz)) if takes(headers, "gzip") => (gz.clone(), Some("gzip")),
                _ => (self.plain.clone(), None),
            };
            let mut response = Body::from(body).into_response();
            if let Some(encoding) = encoding {
                let value = HeaderValue::from_static(encoding);
                response
                    .headers_mut()
                    .insert(header::CONTENT_ENCODING, value);
            }
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, self.content_type.clone());
            response
        };
        let set = response.headers_mut();
        set.insert(header::ETAG, self.etag.clone());
        if self.brotli.is_some() || self.gzip.is_some() {
            set.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        }
        response
    }
}

/// Every file under `dir`, by its path from the site's root (`/pkg/x.js`),
/// with its size.
fn list(dir: &Path, prefix: &str, found: &mut Vec<(String, u64)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = format!("{prefix}/{}", entry.file_name().to_string_lossy());
        match entry.metadata() {
            Ok(meta) if meta.is_dir() => list(&entry.path(), &name, found),
            Ok(meta) => found.push((name, meta.len())),
            Err(_) => {}
        }
    }
}

/// Whether the client sent `etag` in `If-None-Match`.
fn has_copy(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let Some(sent) = headers.get(header::IF_NONE_MATCH) else {
        return false;
    };
    let sent = sent.to_str().unwrap_or_default();
    let etag = etag.to_str().unwrap_or_default();
    // Compared weakly, as `If-None-Match` is.
    let opaque = |tag: &str| tag.trim().trim_start_matches("W/").to_owned();
    sent.trim() == "*" || sent.split(',').any(|tag| opaque(tag) == opaque(etag))
}

/// Whether `Accept-Encoding` takes `coding` (present, and not at `q=0`).
fn takes(headers: &HeaderMap, coding: &str) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|item| {
            let mut parts = item.split(';');
            let named = parts.next().unwrap_or_default().trim();
            let refused = parts.any(|p| {
                let q = p
                    .trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok());
                q == Some(0.0)
            });
            named.eq_ignore_ascii_case(coding) && !refused
        })
}

/// What a path no route claims gets: its file, else "not found".
pub async fn fallback(site: &Site, state: AppState, request: Request) -> Response {
    let request = match site.serve(request).await {
        Ok(file) => return file,
        Err(request) => request,
    };
    let (parts, _) = request.into_parts();
    if app::state::accepts_html(&parts) {
        return app::render::page(state, parts, NotFound).await;
    }
    let what = format!("`{}`", parts.uri.path());
    crate::fn_errors::refused(AppError::NotFound { what })
}

#[cfg(test)]
mod tests;
