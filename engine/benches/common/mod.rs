//! What every benchmark here shares: quantiles, milliseconds, and writing
//! its figures to `target/bench/<name>.json`.

#![allow(dead_code)] // each benchmark uses its own part

use std::time::Duration;

/// Quantile `q` (0..=1) of latencies already sorted ascending.
pub fn quantile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() as f64 * q) as usize).min(sorted.len() - 1)]
}

/// A duration in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Writes a benchmark's figures to `target/bench/<name>.json` and says so.
pub fn write_json(name: &str, figures: &serde_json::Value) {
    let path = format!("target/bench/{name}.json");
    std::fs::create_dir_all("target/bench").unwrap();
    std::fs::write(&path, serde_json::to_string_pretty(figures).unwrap()).unwrap();
    println!("written to {path}");
}
