use super::*;

fn varint_bytes(value: u64) -> Vec<u8> {
    let mut out = Vec::new();
    varint(value, &mut out);
    out
}

fn written(body: impl FnOnce(&mut Compact)) -> Vec<u8> {
    let mut w = Compact::default();
    body(&mut w);
    w.out
}

#[test]
fn varints() {
    assert_eq!(varint_bytes(0), [0]);
    assert_eq!(varint_bytes(1), [1]);
    assert_eq!(varint_bytes(127), [0x7f]);
    assert_eq!(varint_bytes(128), [0x80, 0x01]);
    assert_eq!(varint_bytes(300), [0xac, 0x02]);
    let max = varint_bytes(u64::MAX);
    assert_eq!(max.len(), 10);
    assert_eq!(max[9], 0x01);
    assert!(max[..9].iter().all(|&byte| byte == 0xff));
}

#[test]
fn zigzag_interleaves_signs() {
    let pairs = [(0, 0), (-1, 1), (1, 2), (-2, 3), (2, 4)];
    for (value, encoded) in pairs {
        assert_eq!(zigzag(value), encoded);
    }
    assert_eq!(zigzag(i64::MAX), u64::MAX - 1);
    assert_eq!(zigzag(i64::MIN), u64::MAX);
    assert_eq!(zigzag(i32::MIN.into()), u64::from(u32::MAX));
}

#[test]
fn field_ids_go_in_the_header_as_deltas_up_to_15() {
    let bytes = written(|w| {
        w.i32(1, 3);
        w.i32(16, -1); // delta 15: still short
        w.i64(40, 1); // delta 24: long form, type byte then zigzag id
        w.i32(2, 0); // going back: long form too
    });
    assert_eq!(
        bytes,
        [0x15, 0x06, 0xf5, 0x01, 0x06, 0x50, 0x02, 0x05, 0x04, 0x00]
    );
}

#[test]
fn structs_restart_field_ids_and_end_with_a_stop() {
    let bytes = written(|w| {
        w.struct_value(|w| {
            w.i32(3, 1);
            w.struct_field(4, |w| w.i32(1, 2));
            w.i32(5, 3); // delta from field 4, not from the inner field 1
        });
    });
    assert_eq!(
        bytes,
        [0x35, 0x02, 0x1c, 0x15, 0x04, 0x00, 0x15, 0x06, 0x00]
    );
    assert_eq!(written(|w| w.struct_value(|_| {})), [0x00]);
}

#[test]
fn booleans_and_bytes() {
    let bytes = written(|w| {
        w.bool(1, true);
        w.bool(2, false);
        w.i8(3, 64);
        w.i8(4, -1);
    });
    assert_eq!(bytes, [0x11, 0x12, 0x13, 0x40, 0x13, 0xff]);
}

#[test]
fn binaries_carry_their_length() {
    assert_eq!(
        written(|w| w.binary(4, b"abc")),
        [0x48, 3, b'a', b'b', b'c']
    );
    assert_eq!(written(|w| w.binary(1, b"")), [0x18, 0]);
    let long = vec![7u8; 200];
    let bytes = written(|w| w.binary_value(&long));
    assert_eq!(bytes[..2], [0xc8, 0x01]);
    assert_eq!(bytes.len(), 202);
}

#[test]
fn lists_have_a_short_and_a_long_header() {
    let short = written(|w| {
        w.list(2, I32, 2);
        w.i32_value(0);
        w.i32_value(3);
    });
    assert_eq!(short, [0x29, 0x25, 0x00, 0x06]);
    assert_eq!(written(|w| w.list(1, STRUCT, 14)), [0x19, 0xec]);
    assert_eq!(written(|w| w.list(1, STRUCT, 15)), [0x19, 0xfc, 15]);
    assert_eq!(
        written(|w| w.list(1, BINARY, 300)),
        [0x19, 0xf8, 0xac, 0x02]
    );
}

fn levels<T>(values: &[Option<T>]) -> Vec<u8> {
    let mut out = Vec::new();
    definition_levels(values, &mut out);
    out
}

#[test]
fn definition_levels_are_rle_runs_after_their_length() {
    assert_eq!(levels::<u8>(&[]), [0, 0, 0, 0]);
    let mixed = levels(&[Some(1), Some(2), None, Some(3)]);
    assert_eq!(mixed, [6, 0, 0, 0, 0x04, 1, 0x02, 0, 0x02, 1]);
    let present = levels(&[Some(0.5); 200]);
    assert_eq!(present, [3, 0, 0, 0, 0x90, 0x03, 1]);
    let nulls = levels(&[None::<bool>; 3]);
    assert_eq!(nulls, [2, 0, 0, 0, 0x06, 0]);
}

fn body(values: Values<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    values.page_body(&mut out);
    out
}

#[test]
fn plain_values_leave_nulls_out() {
    let strings = body(Values::String(vec![Some("é"), None, Some("")]));
    let levels = [6, 0, 0, 0, 0x02, 1, 0x02, 0, 0x02, 1];
    assert_eq!(strings[..10], levels);
    assert_eq!(strings[10..], [2, 0, 0, 0, 0xc3, 0xa9, 0, 0, 0, 0]);
    let unsigned = body(Values::UInt32(vec![Some(u32::MAX), None, Some(1)]));
    assert_eq!(unsigned[10..], [0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0]);
    let floats = body(Values::Float64(vec![Some(1.0)]));
    assert_eq!(floats[6..], 1.0f64.to_le_bytes());
}

#[test]
fn booleans_are_packed_eight_to_a_byte() {
    let mut values = vec![Some(true), Some(false), None, Some(true)];
    values.extend([Some(false); 6]);
    values.push(Some(true));
    // Ten values: 1, 0, 1, then six 0s, then 1 (nulls have no bit).
    let page = body(Values::Bool(values));
    assert_eq!(page[page.len() - 2..], [0b0000_0101, 0b0000_0010]);
}

#[test]
fn a_file_starts_and_ends_with_the_magic_and_its_footer_length() {
    let columns = [
        Column {
            name: "a",
            values: Values::Int64(vec![Some(-1), None]),
        },
        Column {
            name: "b",
            values: Values::String(vec![None, Some("x")]),
        },
    ];
    let file = encode(&columns).unwrap();
    assert_eq!(file[..4], *b"PAR1");
    assert_eq!(file[file.len() - 4..], *b"PAR1");
    let footer_len = u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap());
    let footer_start = file.len() - 8 - footer_len as usize;
    // The first page header follows the magic; the footer follows the last page.
    assert_eq!(file[4], 0x15); // field 1 (type), i32
    assert_eq!(file[footer_start], 0x15); // field 1 (version), i32
    assert_eq!(file[footer_start + 1], 0x04); // zigzag(2)
}

#[test]
fn empty_tables_and_tables_without_columns_encode() {
    let columns = [Column {
        name: "a",
        values: Values::Bool(vec![]),
    }];
    assert!(encode(&columns).is_ok());
    assert!(encode(&[]).is_ok());
}

#[test]
fn columns_of_different_lengths_are_refused() {
    let columns = [
        Column {
            name: "a",
            values: Values::UInt64(vec![Some(1)]),
        },
        Column {
            name: "b",
            values: Values::UInt64(vec![]),
        },
    ];
    let error = encode(&columns).unwrap_err();
    assert_eq!(
        error.to_string(),
        "column \"b\" has 0 values where column \"a\" has 1"
    );
}

#[test]
fn levels_are_runs_of_equal_values_after_their_length() {
    let mut out = Vec::new();
    super::levels([3, 3, 0].into_iter(), &mut out);
    assert_eq!(out, [4, 0, 0, 0, 2 << 1, 3, 1 << 1, 0]);
}

#[test]
fn text_lists_carry_repetition_then_definition_levels_then_the_texts() {
    // Rows: [[a, b], []], null, [], [[c]].
    let rows = vec![
        Some(vec![vec!["a", "b"], vec![]]),
        None,
        Some(vec![]),
        Some(vec![vec!["c"]]),
    ];
    let mut out = Vec::new();
    assert_eq!(text_lists(&rows, &mut out), 6);
    // a (new row, a text), b (same inner list), [] (new inner list, empty), null row, empty
    // row, c (new row, a text).
    let mut expected = Vec::new();
    super::levels([0, 2, 1, 0, 0, 0].into_iter(), &mut expected);
    super::levels([5, 5, 3, 0, 1, 5].into_iter(), &mut expected);
    for text in ["a", "b", "c"] {
        expected.extend_from_slice(&1u32.to_le_bytes());
        expected.extend_from_slice(text.as_bytes());
    }
    assert_eq!(out, expected);
}

#[test]
fn a_nested_column_counts_its_level_entries_and_names_its_leaf_path() {
    let columns = [
        Column {
            name: "paths",
            values: Values::TextLists(vec![Some(vec![vec!["a", "b", "c"]]), None]),
        },
        Column {
            name: "none",
            values: Values::Null(2),
        },
    ];
    let file = encode(&columns).expect("encodes");
    let has = |needle: &[u8]| file.windows(needle.len()).any(|w| w == needle);
    assert!(has(b"paths") && has(b"list") && has(b"element"));
    // The nested column's page comes first: its header counts four level entries (three
    // texts and a null row), not two rows.
    let mut page = Vec::new();
    text_lists(&[Some(vec![vec!["a", "b", "c"]]), None], &mut page);
    let header = page_header(4, page.len() as i32);
    assert_eq!(&file[4..4 + header.len()], &header[..]);
    let mut out = Vec::new();
    assert_eq!(Values::Null(2).page_body(&mut out), 2);
    assert_eq!(out, [2, 0, 0, 0, 2 << 1, 0], "two null levels, no values");
}
