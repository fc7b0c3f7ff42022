//! A small embedded migrator. Migrations are SQL files compiled into the
//! binary, applied in order, each in its own transaction, and recorded in
//! `schema_migrations`. We keep this instead of `sqlx::migrate!` so the build
//! does not compile the database drivers a second time for the macro crate.

/// One schema change.
pub(crate) struct Migration {
    /// Its position; applied in ascending order.
    pub version: i64,
    /// What it does.
    pub description: &'static str,
    /// The statements, separated by `;` at line ends.
    pub sql: &'static str,
}

/// Splits a migration into statements, dropping comment lines first (they
/// may contain `;`). Our migrations never put `;` inside a literal, so a
/// split at statement ends is enough.
pub(crate) fn statements(sql: &str) -> Vec<String> {
    let code: String = sql
        .lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .map(|l| format!("{l}\n"))
        .collect();
    code.split(";\n")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_blank_statements_are_skipped() {
        let sql = "-- header\ncreate table a (x int);\n\n-- only a comment;\ncreate table b (\n  -- a; b;\n  y int\n);\n";
        assert_eq!(
            statements(sql),
            ["create table a (x int)", "create table b (\n  y int\n)"]
        );
    }
}
