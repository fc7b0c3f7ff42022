//! `airlock import kagent FILE`: prints the configuration that asks for a
//! kagent agent's approvals (`engine::config::kagent`), or exits 64 saying
//! why it cannot.

use std::path::Path;
use std::process::ExitCode;

/// Prints the configuration `airlock import kagent` makes of `file`; a file
/// that cannot be imported exits 64, saying why.
pub fn kagent(file: &Path) -> ExitCode {
    let from_stdin = file.as_os_str() == "-";
    let name = match from_stdin {
        true => "standard input".to_owned(),
        false => file.display().to_string(),
    };
    let text = match from_stdin {
        true => std::io::read_to_string(std::io::stdin()),
        false => std::fs::read_to_string(file),
    };
    let imported = text
        .map_err(|e| anyhow::anyhow!("cannot read {name}: {e}"))
        .and_then(|text| Ok(engine::config::kagent::import(&name, &text)?));
    match imported {
        Ok(yaml) => {
            print!("{yaml}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("airlock import: {e}");
            ExitCode::from(crate::policy_cli::CANNOT_CHECK)
        }
    }
}
