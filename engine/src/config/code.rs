//! Reading the files of code policies (`policy: {cedar, schema, rego,
//! query}`), beside the configuration file when relative, for the policy
//! to compile: a block's own, `default_policy`'s, and the top-level one
//! every block is also decided by.

use std::collections::BTreeMap;

use super::auth::AuthSettings;
use super::notify::NotifyChannel;
use super::source::beside;
use crate::policy::code::{CodeConfig, CodePolicy, PolicyFile};
use crate::policy::PolicyError;

/// What a code policy's names are checked against.
pub(super) struct Known<'a> {
    pub auth: Option<&'a AuthSettings>,
    pub channels: &'a BTreeMap<String, NotifyChannel>,
}

/// The compiled code policy `config` names, if any; `file` is the
/// configuration's, `key` the `policy` key's path (`sources.fs.policy`).
pub(super) fn load(
    file: &str,
    key: &str,
    config: &Option<CodeConfig>,
    known: &Known<'_>,
) -> Result<Option<CodePolicy>, PolicyError> {
    let Some(config) = config else {
        return Ok(None);
    };
    let read = |at: &str, path: &str| {
        let full = beside(file, path);
        let name = full.display().to_string();
        match std::fs::read_to_string(&full) {
            Ok(text) => Ok(PolicyFile { name, text }),
            Err(e) => Err(PolicyError::new(
                file,
                at,
                format!("cannot read {name}: {e}"),
            )),
        }
    };
    // A mistake the policy finds without a file of its own is the
    // configuration's.
    let code = CodePolicy::compile(config, key, read).map_err(|e| match e.file.is_empty() {
        true => PolicyError {
            file: file.to_owned(),
            ..e
        },
        false => e,
    })?;
    check(&code, key, known)?;
    Ok(Some(code))
}

/// Refuses approver groups `auth.groups` does not define, channels the
/// `notify:` block does not, and passkeys where nobody signs in, as a
/// block's own keys are refused.
fn check(code: &CodePolicy, key: &str, known: &Known<'_>) -> Result<(), PolicyError> {
    for named in code.named() {
        let fail = |problem: String| PolicyError {
            at: Some(crate::policy::Position {
                line: named.line,
                column: 1,
            }),
            ..PolicyError::new(&named.file, key, problem)
        };
        if named.step_up && known.auth.is_none() {
            let problem =
                "a passkey is a signed-in person's: @step_up(\"passkey\") needs an `auth:` block";
            return Err(fail(problem.to_owned()));
        }
        for group in &named.groups {
            if !known.auth.is_some_and(|a| a.groups.contains_key(group)) {
                return Err(fail(format!(
                    "@approvers: no group `{group}` in `auth.groups`"
                )));
            }
        }
        for channel in &named.channels {
            if !known.channels.contains_key(channel) {
                return Err(fail(format!(
                    "@notify: no channel `{channel}` in the `notify:` block"
                )));
            }
        }
    }
    Ok(())
}
