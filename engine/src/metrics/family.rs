//! A metric's series, one per set of label values, and the two kinds the
//! metrics use: counters and histograms. Each family sits behind one lock:
//! recording is a map lookup and an addition, far below a request's cost.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

/// The series of one metric, by label values (in the order of its names).
#[derive(Debug)]
pub(super) struct Family<T> {
    pub(super) name: &'static str,
    pub(super) help: &'static str,
    pub(super) labels: &'static [&'static str],
    series: Mutex<BTreeMap<Vec<String>, T>>,
}

impl<T> Family<T> {
    pub(super) fn new(
        name: &'static str,
        help: &'static str,
        labels: &'static [&'static str],
    ) -> Self {
        Self {
            name,
            help,
            labels,
            series: Mutex::default(),
        }
    }

    /// Changes the series of `values` (one per label), made with `new`
    /// when it is the first.
    pub(super) fn with(
        &self,
        values: &[&str],
        new: impl FnOnce() -> T,
        change: impl FnOnce(&mut T),
    ) {
        let key: Vec<String> = values.iter().map(|v| (*v).to_owned()).collect();
        change(self.lock().entry(key).or_insert_with(new));
    }

    /// Every series, in label order, for rendering.
    pub(super) fn lock(&self) -> MutexGuard<'_, BTreeMap<Vec<String>, T>> {
        // Plain numbers: a panic elsewhere cannot leave them torn.
        self.series.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Family<u64> {
    /// Adds one to the counter of `values`.
    pub(super) fn inc(&self, values: &[&str]) {
        self.with(values, || 0, |count| *count += 1);
    }
}

impl Family<Histogram> {
    /// Counts `value` in the histogram of `values`.
    pub(super) fn observe(&self, values: &[&str], bounds: &'static [f64], value: f64) {
        self.with(values, || Histogram::new(bounds), |h| h.observe(value));
    }
}

/// Observations counted into buckets by upper bound, with their sum.
#[derive(Debug, Clone)]
pub(super) struct Histogram {
    pub(super) bounds: &'static [f64],
    /// Per bucket, not cumulative; the last is above every bound.
    pub(super) counts: Vec<u64>,
    pub(super) sum: f64,
}

impl Histogram {
    fn new(bounds: &'static [f64]) -> Self {
        Self {
            bounds,
            counts: vec![0; bounds.len() + 1],
            sum: 0.0,
        }
    }

    fn observe(&mut self, value: f64) {
        let bucket = self.bounds.partition_point(|bound| *bound < value);
        self.counts[bucket] += 1;
        self.sum += value;
    }
}
