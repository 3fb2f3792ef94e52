//! The Parquet files of the result tables, written here so that saving a run's results needs
//! neither a Parquet library in the core nor Arrow (and NumPy) in the Python front end, whose
//! imports cost more than a short run.
//!
//! The format is Apache Parquet's (<https://github.com/apache/parquet-format>): the file and page
//! metadata are the structs of `src/main/thrift/parquet.thrift` (`FileMetaData`,
//! `SchemaElement`, `RowGroup`, `ColumnChunk`, `ColumnMetaData`, `PageHeader`, `DataPageHeader`)
//! in Thrift's compact protocol
//! (<https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md>), and
//! definition levels are the RLE/bit-packed hybrid of `Encodings.md`. A file is `PAR1`, the column
//! chunks, the `FileMetaData`, its length (4 bytes, little-endian) and `PAR1` again.
//!
//! Only what the tables need is written:
//! - one row group with every row, also for a table without rows (its pages then hold no values;
//!   the schema is in the footer either way);
//! - per column one uncompressed data page (v1), its values PLAIN-encoded (little-endian numbers,
//!   booleans one bit each, strings as a 4-byte length and the UTF-8 bytes), nulls left out;
//! - every column OPTIONAL, so any value may be null: its definition levels (bit width 1, 1 for
//!   a value and 0 for a null) come first, as RLE runs only after their 4-byte length (bit-packed
//!   runs would be shorter for scattered nulls, but a column here is almost always all values or
//!   all nulls); a flat column has no repetition levels;
//! - one nested type, [`Values::TextLists`] (list<list<string>>), in the three-level LIST layout
//!   of `LogicalTypes.md` (`optional group NAME (LIST) { repeated group list { optional group
//!   element (LIST) { repeated group list { optional binary element (STRING) } } } }`): one leaf
//!   column whose page has repetition levels (0 a new row, 1 a new inner list, 2 the next text;
//!   bit width 2) before its definition levels (0 a null row, 1 an empty row, 3 an empty inner
//!   list, 5 a text; bit width 3), the Dremel encoding of Melnik et al., VLDB 2010;
//! - a column of nulls only ([`Values::Null`]) as INT32 annotated UNKNOWN, as pyarrow writes one;
//! - no statistics, dictionaries, indexes, checksums or key-value metadata.
//!
//! Column types, with the Arrow type pyarrow reads back: [`Values::String`] BYTE_ARRAY annotated
//! STRING (UTF8) as `string`, [`Values::Bool`] BOOLEAN as `bool`, [`Values::Float64`] DOUBLE as
//! `double`, [`Values::UInt64`] INT64 annotated INTEGER(64, unsigned) (UINT_64) as `uint64`,
//! [`Values::UInt32`] INT32 annotated INTEGER(32, unsigned) (UINT_32) as `uint32`,
//! [`Values::Int64`] plain INT64 as `int64`, [`Values::TextLists`] as
//! `list<element: list<element: string>>` and [`Values::Null`] as `null`. Unsigned values are
//! stored as the signed type of the same width with the same bits, as the format prescribes.

use std::fmt;

/// One column's values in row order; None is null.
#[derive(Debug, Clone, PartialEq)]
pub enum Values<'a> {
    /// UTF-8 text.
    String(Vec<Option<&'a str>>),
    /// Booleans.
    Bool(Vec<Option<bool>>),
    /// 64-bit floats, NaN and infinities included.
    Float64(Vec<Option<f64>>),
    /// Unsigned 64-bit integers.
    UInt64(Vec<Option<u64>>),
    /// Unsigned 32-bit integers.
    UInt32(Vec<Option<u32>>),
    /// Signed 64-bit integers.
    Int64(Vec<Option<i64>>),
    /// Lists of lists of text (a flow's paths, each a list of node names); a row may be null.
    TextLists(Vec<Option<Vec<Vec<&'a str>>>>),
    /// Nulls only, this many: a column without a type, which pyarrow reads as type `null`.
    Null(usize),
}

/// A named column of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Column<'a> {
    /// Column name.
    pub name: &'a str,
    /// Its values.
    pub values: Values<'a>,
}

/// Why a table cannot be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParquetError(String);

impl fmt::Display for ParquetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParquetError {}

/// The Parquet file of a table made of `columns`, which must all have the same number of rows.
pub fn encode(columns: &[Column<'_>]) -> Result<Vec<u8>, ParquetError> {
    let rows = columns.first().map_or(0, |column| column.values.len());
    if let Some(other) = columns.iter().find(|column| column.values.len() != rows) {
        return Err(ParquetError(format!(
            "column {:?} has {} values where column {:?} has {rows}",
            other.name,
            other.values.len(),
            columns[0].name
        )));
    }
    // A data page counts its values in an i32.
    i32::try_from(rows)
        .map_err(|_| ParquetError(format!("{rows} rows are more than a data page can hold")))?;
    let mut file = MAGIC.to_vec();
    let mut chunks = Vec::with_capacity(columns.len());
    for column in columns {
        let mut page = Vec::new();
        let entries = column.values.page_body(&mut page);
        // `page_body` writes string lengths in 4 bytes, cutting short that of a string over 4 GiB;
        // such a string makes the page too large here, so it never reaches a file.
        let page_size = i32::try_from(page.len()).map_err(|_| {
            ParquetError(format!(
                "column {:?}: its {} bytes are more than a Parquet page can hold (2 GiB)",
                column.name,
                page.len()
            ))
        })?;
        let entries = i32::try_from(entries).map_err(|_| {
            ParquetError(format!(
                "column {:?}: {entries} values are more than a data page can hold",
                column.name
            ))
        })?;
        let header = page_header(entries, page_size);
        chunks.push(Chunk {
            offset: file.len() as i64,
            size: (header.len() + page.len()) as i64,
            values: entries as i64,
        });
        file.extend_from_slice(&header);
        file.extend_from_slice(&page);
    }
    let footer = file_metadata(columns, rows as i64, &chunks);
    file.extend_from_slice(&footer);
    file.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    file.extend_from_slice(MAGIC);
    Ok(file)
}

const MAGIC: &[u8] = b"PAR1";

// Enum values of parquet.thrift.
const TYPE_BOOLEAN: i32 = 0;
const TYPE_INT32: i32 = 1;
const TYPE_INT64: i32 = 2;
const TYPE_DOUBLE: i32 = 5;
const TYPE_BYTE_ARRAY: i32 = 6;
const CONVERTED_UTF8: i32 = 0;
const CONVERTED_UINT_32: i32 = 13;
const CONVERTED_UINT_64: i32 = 14;
const REPETITION_OPTIONAL: i32 = 1;
const REPETITION_REPEATED: i32 = 2;
const CONVERTED_LIST: i32 = 3;
const ENCODING_PLAIN: i32 = 0;
const ENCODING_RLE: i32 = 3;
const CODEC_UNCOMPRESSED: i32 = 0;
const PAGE_DATA: i32 = 0;
/// The format version in `FileMetaData`: 2, as the INTEGER logical type came with format 2.
const FORMAT_VERSION: i32 = 2;

/// How a column is stored: physical type and what the schema says on top of it.
enum Annotation {
    None,
    Utf8,
    Unsigned(i8),
    /// LogicalType UNKNOWN: always null.
    Unknown,
}

/// Where a column chunk (its one page, header included) is in the file.
struct Chunk {
    offset: i64,
    size: i64,
    /// Level entries in the page: one per row for a flat column, more for a nested one.
    values: i64,
}

impl Values<'_> {
    fn len(&self) -> usize {
        match self {
            Values::String(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::Float64(v) => v.len(),
            Values::UInt64(v) => v.len(),
            Values::UInt32(v) => v.len(),
            Values::Int64(v) => v.len(),
            Values::TextLists(v) => v.len(),
            Values::Null(rows) => *rows,
        }
    }

    /// The names from the column's top field to its leaf (`path_in_schema`).
    fn leaf_path<'n>(&self, name: &'n str) -> Vec<&'n str> {
        match self {
            Values::TextLists(_) => vec![name, "list", "element", "list", "element"],
            _ => vec![name],
        }
    }

    fn storage(&self) -> (i32, Annotation) {
        match self {
            Values::String(_) => (TYPE_BYTE_ARRAY, Annotation::Utf8),
            Values::Bool(_) => (TYPE_BOOLEAN, Annotation::None),
            Values::Float64(_) => (TYPE_DOUBLE, Annotation::None),
            Values::UInt64(_) => (TYPE_INT64, Annotation::Unsigned(64)),
            Values::UInt32(_) => (TYPE_INT32, Annotation::Unsigned(32)),
            Values::Int64(_) => (TYPE_INT64, Annotation::None),
            Values::TextLists(_) => (TYPE_BYTE_ARRAY, Annotation::Utf8),
            Values::Null(_) => (TYPE_INT32, Annotation::Unknown),
        }
    }

    /// Appends the data page's body: repetition levels (nested columns only), definition levels,
    /// then the values that are not null; returns how many level entries the page has.
    fn page_body(&self, out: &mut Vec<u8>) -> usize {
        match self {
            Values::String(v) => plain(v, out, |s, out| {
                out.extend_from_slice(&(s.len() as u32).to_le_bytes());
                out.extend_from_slice(s.as_bytes());
            }),
            Values::Bool(v) => {
                definition_levels(v, out);
                let bits: Vec<bool> = v.iter().flatten().copied().collect();
                // Eight to a byte, the first value in the least significant bit.
                out.extend(bits.chunks(8).map(|eight| {
                    eight
                        .iter()
                        .rev()
                        .fold(0u8, |byte, &bit| byte << 1 | u8::from(bit))
                }));
            }
            Values::Float64(v) => plain(v, out, |x, out| out.extend_from_slice(&x.to_le_bytes())),
            Values::UInt64(v) => plain(v, out, |x, out| out.extend_from_slice(&x.to_le_bytes())),
            Values::UInt32(v) => plain(v, out, |x, out| out.extend_from_slice(&x.to_le_bytes())),
            Values::Int64(v) => plain(v, out, |x, out| out.extend_from_slice(&x.to_le_bytes())),
            Values::TextLists(rows) => return text_lists(rows, out),
            Values::Null(rows) => levels(std::iter::repeat_n(0, *rows), out),
        }
        self.len()
    }
}

/// Appends the page body of a list<list<string>> column (see the module header) and returns its
/// number of level entries.
fn text_lists(rows: &[Option<Vec<Vec<&str>>>], out: &mut Vec<u8>) -> usize {
    let (mut repetition, mut definition, mut texts) = (Vec::new(), Vec::new(), Vec::new());
    for row in rows {
        match row {
            None => {
                repetition.push(0);
                definition.push(0);
            }
            Some(lists) if lists.is_empty() => {
                repetition.push(0);
                definition.push(1);
            }
            Some(lists) => {
                for (i, list) in lists.iter().enumerate() {
                    let opens = if i == 0 { 0 } else { 1 };
                    if list.is_empty() {
                        repetition.push(opens);
                        definition.push(3);
                    }
                    for (j, &text) in list.iter().enumerate() {
                        repetition.push(if j == 0 { opens } else { 2 });
                        definition.push(5);
                        texts.push(text);
                    }
                }
            }
        }
    }
    levels(repetition.iter().copied(), out);
    levels(definition.iter().copied(), out);
    for text in texts {
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    }
    repetition.len()
}

/// Appends the definition levels of `values`, then each value that is not null as `write` does.
fn plain<T: Copy>(values: &[Option<T>], out: &mut Vec<u8>, write: impl Fn(T, &mut Vec<u8>)) {
    definition_levels(values, out);
    for &value in values.iter().flatten() {
        write(value, out);
    }
}

/// Appends the definition levels of `values` (1 for a value, 0 for a null).
fn definition_levels<T>(values: &[Option<T>], out: &mut Vec<u8>) {
    levels(values.iter().map(|v| u8::from(v.is_some())), out);
}

/// Appends `levels` in the RLE/bit-packed hybrid after their length in 4 bytes, little-endian.
/// Each run of equal levels is an RLE run: the varint `run length << 1` (the low bit 0 says RLE)
/// and the level in one byte (the levels here need at most 3 bits; a reader takes the bit width
/// from the schema's largest level, and a value of up to 8 bits fills one byte).
fn levels(levels: impl Iterator<Item = u8>, out: &mut Vec<u8>) {
    let mut runs = Vec::new();
    let mut run: Option<(u8, u64)> = None;
    let flush = |(level, length): (u8, u64), runs: &mut Vec<u8>| {
        varint(length << 1, runs);
        runs.push(level);
    };
    for level in levels {
        run = match run {
            Some((same, length)) if same == level => Some((same, length + 1)),
            Some(done) => {
                flush(done, &mut runs);
                Some((level, 1))
            }
            None => Some((level, 1)),
        };
    }
    if let Some(done) = run {
        flush(done, &mut runs);
    }
    out.extend_from_slice(&(runs.len() as u32).to_le_bytes());
    out.extend_from_slice(&runs);
}

/// The `PageHeader` of a data page of `values` values (nulls included) in `size` bytes.
fn page_header(values: i32, size: i32) -> Vec<u8> {
    let mut w = Compact::default();
    w.struct_value(|w| {
        w.i32(1, PAGE_DATA);
        w.i32(2, size); // uncompressed_page_size
        w.i32(3, size); // compressed_page_size
        w.struct_field(5, |w| {
            w.i32(1, values);
            w.i32(2, ENCODING_PLAIN);
            w.i32(3, ENCODING_RLE); // definition levels
            w.i32(4, ENCODING_RLE); // repetition levels (there are none)
        });
    });
    w.out
}

/// The `FileMetaData`: schema, one row group, where each column chunk is.
fn file_metadata(columns: &[Column<'_>], rows: i64, chunks: &[Chunk]) -> Vec<u8> {
    let total: i64 = chunks.iter().map(|chunk| chunk.size).sum();
    let mut w = Compact::default();
    w.struct_value(|w| {
        w.i32(1, FORMAT_VERSION);
        // The schema is a tree flattened depth first: the root, then each column's elements.
        let elements: usize = columns
            .iter()
            .map(|c| c.values.leaf_path(c.name).len())
            .sum();
        w.list(2, STRUCT, elements + 1);
        w.struct_value(|w| {
            w.binary(4, b"schema");
            w.i32(5, columns.len() as i32); // num_children
        });
        for column in columns {
            if let Values::TextLists(_) = column.values {
                list_groups(w, column.name);
            }
            w.struct_value(|w| schema_element(w, column));
        }
        w.i64(3, rows);
        w.list(4, STRUCT, 1);
        w.struct_value(|w| {
            w.list(1, STRUCT, columns.len());
            for (column, chunk) in columns.iter().zip(chunks) {
                w.struct_value(|w| column_chunk(w, column, chunk));
            }
            w.i64(2, total); // total_byte_size
            w.i64(3, rows);
            w.i64(
                5,
                chunks
                    .first()
                    .map_or(MAGIC.len() as i64, |chunk| chunk.offset),
            );
            w.i64(6, total); // total_compressed_size
        });
        w.binary(
            6,
            concat!("airtcp version ", env!("CARGO_PKG_VERSION")).as_bytes(),
        );
    });
    w.out
}

/// The groups above a list<list<string>> column's leaf: the optional LIST-annotated group named
/// after the column, its repeated `list`, the inner optional LIST `element` and its repeated
/// `list`, each with one child.
fn list_groups(w: &mut Compact, name: &str) {
    for (group, repetition, list) in [
        (name, REPETITION_OPTIONAL, true),
        ("list", REPETITION_REPEATED, false),
        ("element", REPETITION_OPTIONAL, true),
        ("list", REPETITION_REPEATED, false),
    ] {
        w.struct_value(|w| {
            w.i32(3, repetition);
            w.binary(4, group.as_bytes());
            w.i32(5, 1); // num_children
            if list {
                w.i32(6, CONVERTED_LIST);
                w.struct_field(10, |w| w.struct_field(3, |_| {})); // LogicalType.LIST
            }
        });
    }
}

/// A leaf `SchemaElement`.
fn schema_element(w: &mut Compact, column: &Column<'_>) {
    let (physical, annotation) = column.values.storage();
    w.i32(1, physical);
    w.i32(3, REPETITION_OPTIONAL);
    let name = match column.values {
        Values::TextLists(_) => "element",
        _ => column.name,
    };
    w.binary(4, name.as_bytes());
    // Both the converted type and the logical type, for readers that know only the older one.
    match annotation {
        Annotation::None => {}
        Annotation::Unknown => w.struct_field(10, |w| w.struct_field(11, |_| {})), // UNKNOWN
        Annotation::Utf8 => {
            w.i32(6, CONVERTED_UTF8);
            w.struct_field(10, |w| w.struct_field(1, |_| {})); // LogicalType.STRING, no fields
        }
        Annotation::Unsigned(bits) => {
            w.i32(
                6,
                if bits == 32 {
                    CONVERTED_UINT_32
                } else {
                    CONVERTED_UINT_64
                },
            );
            w.struct_field(10, |w| {
                w.struct_field(10, |w| {
                    // LogicalType.INTEGER
                    w.i8(1, bits);
                    w.bool(2, false); // isSigned
                });
            });
        }
    }
}

/// A `ColumnChunk` with its `ColumnMetaData`.
fn column_chunk(w: &mut Compact, column: &Column<'_>, chunk: &Chunk) {
    // file_offset: deprecated, and 0 as parquet.thrift now asks, since writers used it for
    // different things.
    w.i64(2, 0);
    w.struct_field(3, |w| {
        w.i32(1, column.values.storage().0);
        w.list(2, I32, 2);
        w.i32_value(ENCODING_PLAIN);
        w.i32_value(ENCODING_RLE);
        let path = column.values.leaf_path(column.name);
        w.list(3, BINARY, path.len()); // path_in_schema
        for name in path {
            w.binary_value(name.as_bytes());
        }
        w.i32(4, CODEC_UNCOMPRESSED);
        w.i64(5, chunk.values); // num_values: level entries
        w.i64(6, chunk.size); // total_uncompressed_size, page header included
        w.i64(7, chunk.size); // total_compressed_size
        w.i64(9, chunk.offset); // data_page_offset
    });
}

// Type codes of the compact protocol; a boolean field has its value in the code.
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const I8: u8 = 3;
const I32: u8 = 5;
const I64: u8 = 6;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const STRUCT: u8 = 12;
const STOP: u8 = 0;

/// A writer of Thrift's compact protocol, the part the Parquet metadata needs. A struct is its
/// fields in increasing id order, then a stop byte. A field starts with its type code and its id:
/// as the difference from the previous field's id in the high nibble of the same byte when that
/// is 1 to 15, else in a zigzag varint after the code. Integers are zigzag varints, binaries a
/// varint length then the bytes, and a list a byte with its size (if under 15) and element
/// code, then the elements without field headers.
#[derive(Default)]
struct Compact {
    out: Vec<u8>,
    /// The id of the last field written in the struct being written.
    last_id: i16,
}

impl Compact {
    fn field(&mut self, id: i16, code: u8) {
        match id - self.last_id {
            delta @ 1..=15 => self.out.push((delta as u8) << 4 | code),
            _ => {
                self.out.push(code);
                varint(zigzag(id.into()), &mut self.out);
            }
        }
        self.last_id = id;
    }

    fn bool(&mut self, id: i16, value: bool) {
        self.field(id, if value { TRUE } else { FALSE });
    }

    fn i8(&mut self, id: i16, value: i8) {
        self.field(id, I8);
        self.out.push(value as u8);
    }

    fn i32(&mut self, id: i16, value: i32) {
        self.field(id, I32);
        self.i32_value(value);
    }

    fn i64(&mut self, id: i16, value: i64) {
        self.field(id, I64);
        varint(zigzag(value), &mut self.out);
    }

    fn binary(&mut self, id: i16, bytes: &[u8]) {
        self.field(id, BINARY);
        self.binary_value(bytes);
    }

    fn struct_field(&mut self, id: i16, fields: impl FnOnce(&mut Self)) {
        self.field(id, STRUCT);
        self.struct_value(fields);
    }

    /// The header of a list field of `len` elements of type `code`; the caller writes them next
    /// with the `*_value` methods.
    fn list(&mut self, id: i16, code: u8, len: usize) {
        self.field(id, LIST);
        if len < 15 {
            self.out.push((len as u8) << 4 | code);
        } else {
            self.out.push(0xf0 | code);
            varint(len as u64, &mut self.out);
        }
    }

    fn i32_value(&mut self, value: i32) {
        varint(zigzag(value.into()), &mut self.out);
    }

    fn binary_value(&mut self, bytes: &[u8]) {
        varint(bytes.len() as u64, &mut self.out);
        self.out.extend_from_slice(bytes);
    }

    /// A struct whose fields `fields` writes; its field ids count from 0 again.
    fn struct_value(&mut self, fields: impl FnOnce(&mut Self)) {
        let outer = std::mem::replace(&mut self.last_id, 0);
        fields(self);
        self.out.push(STOP);
        self.last_id = outer;
    }
}

/// Zigzag encoding: small magnitudes of either sign become small unsigned numbers (0, -1, 1, -2
/// -> 0, 1, 2, 3). The same for i16 and i32 values widened to i64.
fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

/// ULEB128: seven bits a byte, least significant first, the high bit set on all but the last.
fn varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

#[cfg(test)]
mod tests;
