//! Reading the files of code policies (`policy: {cedar, schema, rego,
//! query}`), beside the configuration file when relative, for the policy
//! to compile: a block's own, `default_policy`'s, and the top-level one
//! every block is also decided by.

use super::source::beside;
use crate::policy::code::{CodeConfig, CodePolicy, PolicyFile};
use crate::policy::PolicyError;

/// The compiled code policy `config` names, if any; `file` is the
/// configuration's, `key` the `policy` key's path (`sources.fs.policy`).
pub(super) fn load(
    file: &str,
    key: &str,
    config: &Option<CodeConfig>,
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
    CodePolicy::compile(config, key, read)
        .map(Some)
        .map_err(|e| match e.file.is_empty() {
            true => PolicyError {
                file: file.to_owned(),
                ..e
            },
            false => e,
        })
}
