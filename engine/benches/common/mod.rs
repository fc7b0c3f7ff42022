//! What every benchmark here shares: quantiles, milliseconds, the rows of
//! the decision benchmarks, CPU time counters, and writing figures to
//! `target/bench/<name>.json`.

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
    /// Latency quantiles of the decision taking effect (the tool running).
    pub p50: Duration,
    pub p99: Duration,
    /// p50 and p99 until a browser is shown the effect, where measured.
    pub shown: Option<(Duration, Duration)>,
    /// The CPU time every process on the machine used per decision, in µs
    /// (see [`CpuUse::busy_seconds`]), where `/proc` tells it: steadier
    /// than the rate for comparing two builds on a machine whose speed drifts.
    pub cpu_us: Option<f64>,
}

/// Prints `rows` as a table under `title` and writes them to
/// `target/bench/<name>.json`.
pub fn report_decisions(name: &str, title: &str, rows: &[DecisionRow]) {
    println!("\n{title}");
    let shown = rows.iter().any(|r| r.shown.is_some());
    let extra = |r: &DecisionRow| match (shown, r.shown) {
        (true, Some((p50, p99))) => format!(" {:>13.2} {:>13.2}", ms(p50), ms(p99)),
        _ => String::new(),
    };
    let cpu = |r: &DecisionRow| r.cpu_us.map_or("-".to_owned(), |us| format!("{us:.0}"));
    println!(
        "{:<16} {:<10} {:>9} {:>13} {:>10} {:>10}{} {:>11}",
        "backend",
        "load",
        "deciders",
        "decisions/s",
        "p50 ms",
        "p99 ms",
        if shown {
            "  shown p50 ms  shown p99 ms"
        } else {
            ""
        },
        "CPU µs/dec"
    );
    for r in rows {
        println!(
            "{:<16} {:<10} {:>9} {:>13.0} {:>10.2} {:>10.2}{} {:>11}",
            r.backend,
            r.load,
            r.deciders,
            r.per_second,
            ms(r.p50),
            ms(r.p99),
            extra(r),
            cpu(r)
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
                "shown_p50_ms": r.shown.map(|(p50, _)| ms(p50)),
                "shown_p99_ms": r.shown.map(|(_, p99)| ms(p99)),
                "cpu_us_per_decision": r.cpu_us.map(f64::round),
            })
        })
        .collect();
    write_json(name, &serde_json::Value::Array(figures));
}

/// CPU time counters: the machine's from `/proc/stat`, to tell how much of
/// a measurement the hypervisor took away (on a shared virtual machine the
/// same binary measures up to a third slower while its neighbours are busy)
/// and how much the cores sat idle; and this process's, from
/// `/proc/self/stat`, to tell what the work cost whatever the machine did.
#[derive(Debug, Clone, Copy)]
pub struct CpuTimes {
    /// Ticks spent in any state.
    total: u64,
    /// Ticks the hypervisor ran something else while we wanted the CPU.
    steal: u64,
    /// Ticks no core had anything to run (idle and iowait).
    idle: u64,
    /// Ticks this process ran, in user and kernel mode.
    process: u64,
}

/// What the machine did between two [`CpuTimes`].
#[derive(Debug, Clone, Copy)]
pub struct CpuUse {
    /// The share of CPU time stolen, in percent.
    pub steal_percent: f64,
    /// The share of CPU time no core used, in percent.
    pub idle_percent: f64,
    /// This process's CPU time, in seconds.
    pub process_seconds: f64,
    /// The CPU time every process on the machine used (the server, the
    /// database, the load generator and the kernel for them), in seconds.
    pub busy_seconds: f64,
}

/// Clock ticks per second in `/proc`'s counters (`USER_HZ`, 100 on Linux).
const TICKS_PER_SECOND: f64 = 100.0;

/// The CPU time the calling thread has used, in seconds, from
/// `/proc/thread-self/stat`; `None` where it cannot be read. A load
/// generator on a thread of its own subtracts this from the process's time
/// to tell what the server alone spent.
pub fn thread_cpu_seconds() -> Option<f64> {
    let own = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = own[own.rfind(')')? + 1..].split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / TICKS_PER_SECOND)
}

impl CpuTimes {
    /// Now; `None` where `/proc` cannot be read (not Linux).
    pub fn now() -> Option<Self> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let line = stat.lines().find(|l| l.starts_with("cpu "))?;
        // user nice system idle iowait irq softirq steal (guest time is
        // already counted in user and nice).
        let ticks: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .take(8)
            .map(|t| t.parse().ok())
            .collect::<Option<_>>()?;
        // The process's name, in parentheses, may hold spaces: its fields
        // after it start with the state (field 3); utime and stime are 14 and 15.
        let own = std::fs::read_to_string("/proc/self/stat").ok()?;
        let fields: Vec<&str> = own[own.rfind(')')? + 1..].split_whitespace().collect();
        let process = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        (ticks.len() == 8).then(|| Self {
            total: ticks.iter().sum(),
            steal: ticks[7],
            idle: ticks[3] + ticks[4],
            process,
        })
    }

    /// What the machine did between `earlier` and now.
    pub fn use_since(earlier: Option<Self>) -> Option<CpuUse> {
        let (earlier, now) = (earlier?, Self::now()?);
        let total = now.total.checked_sub(earlier.total)?;
        let percent = |ticks: u64| ticks as f64 * 100.0 / total as f64;
        (total > 0).then(|| CpuUse {
            steal_percent: percent(now.steal - earlier.steal),
            idle_percent: percent(now.idle - earlier.idle),
            process_seconds: (now.process - earlier.process) as f64 / TICKS_PER_SECOND,
            busy_seconds: (total - (now.idle - earlier.idle) - (now.steal - earlier.steal)) as f64
                / TICKS_PER_SECOND,
        })
    }
}
