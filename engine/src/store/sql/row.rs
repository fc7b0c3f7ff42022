//! What a statement gives back, read out of either database into one shape,
//! so the queries decode rows once for both.

use std::sync::Arc;

use super::super::StoreError;

/// A value of a column, as the queries read it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// SQL `null`.
    Null,
    /// An integer of any width.
    Integer(i64),
    Text(String),
    /// A boolean (PostgreSQL; SQLite answers with integers).
    Bool(bool),
    /// Anything else, described; reading it is an error.
    Other(String),
}

/// A row of a result.
#[derive(Debug, Clone)]
pub struct Row {
    columns: Arc<[String]>,
    values: Vec<Value>,
}

/// What running a statement gave back: its rows, and how many rows it
/// inserted, updated or deleted.
#[derive(Debug, Default)]
pub struct Rows {
    /// The rows it returned.
    pub rows: Vec<Row>,
    /// The rows it changed.
    pub changed: u64,
}

impl Row {
    /// A row with `values` for `columns` (shared by every row of a result).
    pub fn new(columns: Arc<[String]>, values: Vec<Value>) -> Self {
        Self { columns, values }
    }

    /// The value of the column called `name`.
    pub fn try_get<T: Decode>(&self, name: &str) -> Result<T, StoreError> {
        let index = self
            .columns
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| StoreError::NoColumn(name.to_owned()))?;
        self.decode(index)
    }

    /// The value of the first column.
    pub fn first<T: Decode>(&self) -> Result<T, StoreError> {
        self.decode(0)
    }

    fn decode<T: Decode>(&self, index: usize) -> Result<T, StoreError> {
        let value = self.values.get(index).unwrap_or(&Value::Null);
        T::decode(value).map_err(|detail| StoreError::Unreadable {
            column: self.columns.get(index).cloned().unwrap_or_default(),
            detail,
        })
    }
}

/// A Rust value read from a column's [`Value`].
pub trait Decode: Sized {
    /// The value, or what is wrong with `value`.
    fn decode(value: &Value) -> Result<Self, String>;
}

impl Decode for i64 {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Integer(i) => Ok(*i),
            other => Err(format!("expected an integer, found {other:?}")),
        }
    }
}

impl Decode for bool {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Bool(b) => Ok(*b),
            Value::Integer(i) => Ok(*i != 0),
            other => Err(format!("expected a boolean, found {other:?}")),
        }
    }
}

impl Decode for String {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Text(text) => Ok(text.clone()),
            other => Err(format!("expected text, found {other:?}")),
        }
    }
}

impl<T: Decode> Decode for Option<T> {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(None),
            other => T::decode(other).map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> Row {
        let columns: Arc<[String]> = ["id", "name", "note", "flag"]
            .map(str::to_owned)
            .into_iter()
            .collect();
        let values = vec![
            Value::Integer(7),
            Value::Text("seven".into()),
            Value::Null,
            Value::Integer(1),
        ];
        Row::new(columns, values)
    }

    #[test]
    fn columns_are_read_by_name_and_type() {
        let row = row();
        assert_eq!(row.try_get::<i64>("id").unwrap(), 7);
        assert_eq!(row.first::<i64>().unwrap(), 7);
        assert_eq!(row.try_get::<String>("name").unwrap(), "seven");
        assert_eq!(row.try_get::<Option<String>>("note").unwrap(), None);
        assert!(row.try_get::<bool>("flag").unwrap());
    }

    #[test]
    fn a_wrong_type_or_a_missing_column_is_an_error_naming_the_column() {
        let row = row();
        match row.try_get::<i64>("name") {
            Err(StoreError::Unreadable { column, .. }) => assert_eq!(column, "name"),
            other => panic!("expected an unreadable column, got {other:?}"),
        }
        assert!(matches!(
            row.try_get::<String>("note"),
            Err(StoreError::Unreadable { .. })
        ));
        assert!(matches!(
            row.try_get::<i64>("nope"),
            Err(StoreError::NoColumn(_))
        ));
    }
}
