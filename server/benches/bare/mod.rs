//! The request floor every server benchmark is measured against: a bare
//! axum server (the same tokio, hyper and axum as Airlock's) with one route
//! answering "ok", served as Airlock is served, in the benchmark's own
//! process, so a figure divided by it holds on a day the machine is slower.

/// Serves the bare route on a free loopback port from the current runtime,
/// and returns its base URL.
pub async fn serve() -> String {
    let app = axum::Router::new().route("/", axum::routing::get(|| async { "ok" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let listener = server::without_nagle(listener);
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}
