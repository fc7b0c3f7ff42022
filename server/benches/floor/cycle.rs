//! The gateway cycle's four requests, each measured on its own: [`CASES`]
//! cases are created (202), then each case's review page is opened (its
//! first view, which opens the case), then each is responded to, then each
//! polled until completed; each request is a round of its own over all the
//! cases, and a round of the cycle makes new cases. The cycles' figures are
//! the sums of their requests': the like-for-like cycle has all four, the
//! plain cycle all but the page.

use serde_json::{json, Value};

use super::client::Case;
use super::{measure, Ask, BROWSER, CASES, CLIENTS, KEY, ROUNDS, WARMUP};

/// The four requests, in the order a case meets them.
const STEPS: [&str; 4] = ["create (202)", "review page", "respond", "poll"];

/// The server's µs per request of each step's rounds.
pub struct Steps([Vec<f64>; 4]);

/// A new call for review, the `i`th of `client` in round `number`.
fn create(number: usize, client: usize, i: usize) -> Ask {
    let body = json!({
        "tool": "delete_file",
        "arguments": {"path": format!("r{number}-c{client}-{i}.txt")},
        "source": "filesystem",
        "agent_id": "bench",
        "session_id": format!("s{}", i % 64),
    });
    Ask {
        method: "POST",
        path: "/api/v1/tool-calls".into(),
        bearer: Some(KEY),
        body: Some(serde_json::to_vec(&body).unwrap()),
        status: 202,
    }
}

/// Runs [`ROUNDS`] rounds of the four steps on `base`, adding a row per
/// step and round.
pub fn measure_steps(rows: &mut Vec<Value>, base: &str) -> Steps {
    let mut steps: [Vec<f64>; 4] = Default::default();
    let per_client = WARMUP + CASES / CLIENTS;
    for number in 1..=ROUNDS {
        let creates = (0..CLIENTS)
            .map(|c| (0..per_client).map(|i| create(number, c, i)).collect())
            .collect();
        let label = (STEPS[0], "/api/v1/tool-calls", number);
        let (us, bodies) = measure(rows, label, base, creates, None, true);
        steps[0].extend(us);
        let cases: Vec<Vec<Case>> = bodies
            .iter()
            .map(|kept| kept.iter().map(|b| Case::from_created(b)).collect())
            .collect();
        let each = |ask: &dyn Fn(&Case) -> Ask| -> Vec<Vec<Ask>> {
            cases.iter().map(|c| c.iter().map(ask).collect()).collect()
        };
        let page = each(&|c| Ask::get(c.review.clone(), 200));
        let label = (STEPS[1], "/review/{id}", number);
        steps[1].extend(measure(rows, label, base, page, Some(BROWSER), false).0);
        let respond = each(&|c| Ask {
            method: "POST",
            path: c.respond.clone(),
            bearer: None,
            body: Some(br#"{"action":"approve"}"#.to_vec()),
            status: 200,
        });
        let label = (STEPS[2], "…/respond", number);
        steps[2].extend(measure(rows, label, base, respond, None, false).0);
        let poll = each(&|c| Ask {
            bearer: Some(KEY),
            ..Ask::get(c.poll.clone(), 200)
        });
        let label = (STEPS[3], "…/status", number);
        steps[3].extend(measure(rows, label, base, poll, None, false).0);
    }
    Steps(steps)
}

impl Steps {
    /// Each cycle's server µs (the sum of its steps' means) and its multiple
    /// of `floor`, the bare server's µs per request, against its target.
    pub fn summary(&self, floor: Option<f64>) -> Vec<Value> {
        let mean =
            |us: &Vec<f64>| (!us.is_empty()).then(|| us.iter().sum::<f64>() / us.len() as f64);
        let means: Vec<Option<f64>> = self.0.iter().map(mean).collect();
        let cycle = |name: &str, steps: &[usize], target: f64| {
            let us: Option<f64> = steps.iter().map(|&s| means[s]).sum();
            json!({
                "cycle": name,
                "server_cpu_us": us.map(f64::round),
                "times_bare": us.zip(floor).map(|(us, f)| (us / f * 10.0).round() / 10.0),
                "target_times_bare": target,
            })
        };
        vec![
            cycle("plain (202 → respond → poll)", &[0, 2, 3], 15.0),
            cycle("like for like (with the page)", &[0, 1, 2, 3], 30.0),
        ]
    }
}

pub fn print_summary(cycles: &[Value]) {
    println!("\nthe gateway cycle as the sum of its requests, server CPU");
    println!(
        "{:>30} {:>11} {:>8} {:>8}",
        "cycle", "server µs", "× bare", "target"
    );
    for c in cycles {
        println!(
            "{:>30} {:>11} {:>8} {:>8}",
            c["cycle"].as_str().unwrap_or_default(),
            c["server_cpu_us"].to_string(),
            c["times_bare"].to_string(),
            c["target_times_bare"].to_string()
        );
    }
}
