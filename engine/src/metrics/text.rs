//! Prometheus' text exposition format (version 0.0.4): a `# HELP` and a
//! `# TYPE` line per metric, then one line per series.

use std::fmt::Write;

use super::family::{Family, Histogram};

/// The content type of the format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Writes a metric's help and type.
pub(super) fn header(out: &mut String, name: &str, help: &str, kind: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// Writes one sample: `name{labels} value`.
pub(super) fn sample(out: &mut String, name: &str, labels: &[(&str, &str)], value: f64) {
    out.push_str(name);
    if !labels.is_empty() {
        out.push('{');
        for (i, (label, text)) in labels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{label}=\"{}\"", escaped(text));
        }
        out.push('}');
    }
    let _ = writeln!(out, " {}", number(value));
}

/// Writes a family of counters.
pub(super) fn counters(out: &mut String, family: &Family<u64>) {
    header(out, family.name, family.help, "counter");
    for (values, count) in family.lock().iter() {
        sample(
            out,
            family.name,
            &pairs(family.labels, values),
            *count as f64,
        );
    }
}

/// Writes a family of histograms: cumulative buckets, sum and count.
pub(super) fn histograms(out: &mut String, family: &Family<Histogram>) {
    header(out, family.name, family.help, "histogram");
    let bucket = format!("{}_bucket", family.name);
    for (values, histogram) in family.lock().iter() {
        let labels = pairs(family.labels, values);
        let mut seen = 0;
        for (i, count) in histogram.counts.iter().enumerate() {
            seen += count;
            let le = histogram
                .bounds
                .get(i)
                .map_or("+Inf".to_owned(), |b| number(*b));
            let mut bounded = labels.clone();
            bounded.push(("le", le.as_str()));
            sample(out, &bucket, &bounded, seen as f64);
        }
        sample(out, &format!("{}_sum", family.name), &labels, histogram.sum);
        sample(out, &format!("{}_count", family.name), &labels, seen as f64);
    }
}

fn pairs<'a>(names: &[&'a str], values: &'a [String]) -> Vec<(&'a str, &'a str)> {
    names
        .iter()
        .copied()
        .zip(values.iter().map(String::as_str))
        .collect()
}

/// A number as the format writes it: whole numbers without a point.
fn number(value: f64) -> String {
    match value.is_finite() && value.fract() == 0.0 && value.abs() < 1e15 {
        true => format!("{}", value as i64),
        false => format!("{value}"),
    }
}

/// A label value with `\`, `"` and line feeds escaped.
fn escaped(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
