//! Any review submission body, for both kinds of case: read into a decision
//! or an answer, or refused with a field error, never a panic.
#![no_main]

use engine::domain::CaseType;
use engine::reviews::Submission;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(submission) = serde_json::from_slice::<Submission>(bytes) else {
        return;
    };
    for case_type in [CaseType::Approval, CaseType::Input] {
        let _ = submission.response(&case_type);
    }
});
