//! Any text as a configuration file: parsing either fails with an error or
//! gives policies that classify any call, never a panic.
#![no_main]

use engine::config::Config;
use engine::policy::CallFacts;
use libfuzzer_sys::fuzz_target;
use serde_json::json;

fuzz_target!(|text: &str| {
    let Ok(config) = Config::parse("fuzz.yaml", text) else {
        return;
    };
    let arguments = json!({ "path": "../etc/passwd", "to": "a@example.com" });
    let policies = config
        .sources
        .values()
        .map(|s| &s.policy)
        .chain([&config.default_policy]);
    for policy in policies {
        for tool in ["delete_file", "read_file", "", "*", "send_email"] {
            for (read_only_hint, granted) in [(false, false), (true, false), (false, true)] {
                policy.decide(CallFacts {
                    read_only_hint,
                    granted,
                    ..CallFacts::new("fuzz", tool, &arguments)
                });
            }
        }
    }
});
