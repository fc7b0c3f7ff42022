//! Where a key path (`sources.fs.rules[0].when[1]`) stands in the file's
//! text, for mistakes found after reading: bad globs, unknown groups,
//! sources without a connection. serde_yaml keeps no positions in its
//! values, so the text is read again, down the path only, and the parser is
//! made to fail at the key: its error then carries the key's line and column.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::policy::Position;

/// The message of the error raised where the path ends; a mistake of the
/// YAML itself carries another, and means the path was not found.
const FOUND: &str = "airlock: found the key";

/// The position of `path` in `text`: of its last key, or of the list item
/// it ends with. `None` when the text has no such path.
pub(super) fn position(text: &str, path: &str) -> Option<Position> {
    let document = serde_yaml::Deserializer::from_str(text);
    let error = Seek { rest: path }.deserialize(document).err()?;
    if !error.to_string().contains(FOUND) {
        return None;
    }
    let location = error.location()?;
    Some(Position {
        line: location.line(),
        column: location.column(),
    })
}

/// A node, with what is left of the path below it.
struct Seek<'p> {
    rest: &'p str,
}

impl<'de> DeserializeSeed<'de> for Seek<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seek<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(below) = map.next_key_seed(Key { rest: self.rest })? {
            match below {
                Some(rest) => return map.next_value_seed(Seek { rest }),
                None => map.next_value::<IgnoredAny>()?,
            };
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some(item) = Item::parse(self.rest) else {
            return Ok(());
        };
        for _ in 0..item.index {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        if item.rest.is_empty() {
            seq.next_element_seed(Here)?;
        } else {
            seq.next_element_seed(Seek { rest: item.rest })?;
        }
        Ok(())
    }

    // A scalar has nothing below it: the path is not in the text.
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// `[3]` at the start of a path, and what follows it.
struct Item<'p> {
    index: usize,
    rest: &'p str,
}

impl<'p> Item<'p> {
    fn parse(path: &'p str) -> Option<Self> {
        let (index, rest) = path.strip_prefix('[')?.split_once(']')?;
        Some(Self {
            index: index.parse().ok()?,
            rest: rest.strip_prefix('.').unwrap_or(rest),
        })
    }
}

/// A mapping's key: the path's last key (found), the next one (with the
/// path below it), or another.
struct Key<'p> {
    rest: &'p str,
}

impl<'de, 'p> DeserializeSeed<'de> for Key<'p> {
    type Value = Option<&'p str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'p> Visitor<'_> for Key<'p> {
    type Value = Option<&'p str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        // Matched as a prefix rather than split on dots: a source or an
        // env variable may have a dot in its name.
        let Some(after) = self.rest.strip_prefix(key) else {
            return Ok(None);
        };
        match after.chars().next() {
            None => Err(E::custom(FOUND)),
            Some('.') => Ok(Some(&after[1..])),
            Some('[') => Ok(Some(after)),
            Some(_) => Ok(None),
        }
    }
}

/// The node the path ends at: the parser fails on it, at its position.
struct Here;

impl<'de> DeserializeSeed<'de> for Here {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Here {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(E::custom(FOUND))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(E::custom(FOUND))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
}
