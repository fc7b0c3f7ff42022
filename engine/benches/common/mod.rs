//! What every benchmark here shares: quantiles, milliseconds, the rows of
//! the decision benchmarks, and writing figures to `target/bench/<name>.json`.

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

/// One configuration of a decision benchmark and what it measured.
pub struct DecisionRow {
    pub backend: &'static str,
    /// `saturated` or `paced`.
    pub load: &'static str,
    pub deciders: usize,
    pub per_second: f64,
    pub p50: Duration,
    pub p99: Duration,
}

/// Prints `rows` as a table under `title` and writes them to
/// `target/bench/<name>.json`.
pub fn report_decisions(name: &str, title: &str, rows: &[DecisionRow]) {
    println!("\n{title}");
    println!(
        "{:<10} {:<10} {:>9} {:>13} {:>10} {:>10}",
        "backend", "load", "deciders", "decisions/s", "p50 ms", "p99 ms"
    );
    for r in rows {
        println!(
            "{:<10} {:<10} {:>9} {:>13.0} {:>10.2} {:>10.2}",
            r.backend,
            r.load,
            r.deciders,
            r.per_second,
            ms(r.p50),
            ms(r.p99)
        );
    }
    let figures = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "backend": r.backend,
                "load": r.load,
                "deciders": r.deciders,
                "decisions_per_second": r.per_second,
                "p50_ms": ms(r.p50),
                "p99_ms": ms(r.p99),
            })
        })
        .collect();
    write_json(name, &serde_json::Value::Array(figures));
}
