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

/// Splits a migration into statements. Our migrations never put `;` inside a
/// literal, so a split at statement ends is enough.
pub(crate) fn statements(sql: &str) -> impl Iterator<Item = &str> {
    sql.split(";\n").map(str::trim).filter(|s| {
        !s.lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with("--"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_blank_statements_are_skipped() {
        let sql =
            "-- header\ncreate table a (x int);\n\n-- only a comment;\ncreate table b (y int);\n";
        let got: Vec<_> = statements(sql).collect();
        assert_eq!(got.len(), 2);
        assert_eq!(got[1], "create table b (y int)");
    }
}
