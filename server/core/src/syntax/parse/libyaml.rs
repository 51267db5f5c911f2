//! libyaml's event parser (`unsafe-libyaml`, libyaml 0.2.5 transpiled to Rust), behind a safe
//! interface. Kubernetes reads manifests with go-yaml, a port of libyaml: parsing with libyaml
//! itself accepts and rejects exactly what the cluster does (docs/semantics.md §4.1).
//!
//! Every `unsafe` block of the crate is here. The parser reads the input in place (it must
//! outlive the parser, hence the borrow) and each event is handed out only while it is alive.
//! Marks are byte offsets into the input (libyaml counts UTF-8 bytes).

use std::ffi::CStr;
use std::mem::MaybeUninit;

use unsafe_libyaml as unsafe_sys;

use crate::syntax::ScalarStyle;

/// One event, borrowed from the parser until the next call.
pub(super) enum Event<'e> {
    StreamStart,
    DocumentStart,
    DocumentEnd,
    StreamEnd,
    Alias { anchor: &'e [u8] },
    Scalar { value: &'e str, style: ScalarStyle, anchor: Option<&'e [u8]>, tagged: bool },
    SequenceStart { anchor: Option<&'e [u8]>, tagged: bool, flow: bool },
    SequenceEnd,
    MappingStart { anchor: Option<&'e [u8]>, tagged: bool, flow: bool },
    MappingEnd,
}

/// Where libyaml stopped, and its words (`context, problem` as libyaml prints them).
pub(super) struct Failure {
    pub at: usize,
    /// Where the construct named by `context` began (an unclosed quote's quote).
    pub context_at: usize,
    pub context: Option<&'static str>,
    pub problem: &'static str,
}

pub(super) struct Parser<'a> {
    raw: Box<MaybeUninit<unsafe_sys::yaml_parser_t>>,
    event: Box<MaybeUninit<unsafe_sys::yaml_event_t>>,
    _input: &'a [u8],
    /// `yaml_parser_initialize` succeeded: the parser owns buffers to free.
    init: bool,
    done: bool,
}

/// libyaml's messages are static C strings; an unknown one reads as empty.
fn c_text(p: *const std::ffi::c_char) -> Option<&'static str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: libyaml sets these fields only to string literals (static, NUL-terminated).
    unsafe { CStr::from_ptr(p) }.to_str().ok()
}

/// A NUL-terminated anchor or tag libyaml allocated, as bytes (None for a null pointer).
///
/// SAFETY: `p` is null or a NUL-terminated string alive for `'e`.
unsafe fn c_bytes<'e>(p: *const u8) -> Option<&'e [u8]> {
    if p.is_null() {
        return None;
    }
    // SAFETY: per the function's contract.
    Some(unsafe { CStr::from_ptr(p.cast()) }.to_bytes())
}

impl<'a> Parser<'a> {
    pub fn new(input: &'a str) -> Parser<'a> {
        let mut raw: Box<MaybeUninit<unsafe_sys::yaml_parser_t>> = Box::new(MaybeUninit::uninit());
        let p = raw.as_mut_ptr();
        // SAFETY: `p` points to memory for one parser, which `yaml_parser_initialize` fills
        // (it only fails to allocate its buffers, and then `done` keeps it from being used).
        // The input is borrowed for the parser's whole life.
        let ok = unsafe { unsafe_sys::yaml_parser_initialize(p) }.ok;
        if ok {
            // SAFETY: initialised above; `input` outlives the parser (`'a`).
            unsafe {
                unsafe_sys::yaml_parser_set_encoding(p, unsafe_sys::YAML_UTF8_ENCODING);
                unsafe_sys::yaml_parser_set_input_string(p, input.as_ptr(), input.len() as u64);
            }
        }
        Parser { raw, event: Box::new(MaybeUninit::uninit()), _input: input.as_bytes(), init: ok, done: !ok }
    }

    /// The next event with its start and end marks (byte offsets), or why parsing stopped.
    /// `Ok(None)` after the stream's end.
    pub fn next<R>(&mut self, f: impl FnOnce(Event<'_>, usize, usize) -> R) -> Result<Option<R>, Failure> {
        if self.done {
            return Ok(None);
        }
        let p = self.raw.as_mut_ptr();
        let e = self.event.as_mut_ptr();
        // SAFETY: the parser was initialised (`done` is false); `e` points to memory for
        // one event, which `yaml_parser_parse` fills on success.
        if unsafe { unsafe_sys::yaml_parser_parse(p, e) }.fail {
            self.done = true;
            // SAFETY: on failure libyaml has set the error fields; the parser stays valid.
            let r = unsafe { &*p };
            let (kind, offset, mark, context, problem, context_mark) =
                (r.error, r.problem_offset, r.problem_mark, r.context, r.problem, r.context_mark);
            // The reader (a control character) says where by offset, not by mark.
            let at = if kind == unsafe_sys::YAML_READER_ERROR { offset } else { mark.index };
            return Err(Failure {
                at: at as usize,
                context_at: context_mark.index as usize,
                context: c_text(context),
                problem: c_text(problem).unwrap_or("unknown error"),
            });
        }
        // SAFETY: the event was filled by a successful parse; its data is the union member
        // its type names; the strings it points to live until `yaml_event_delete` below.
        let out = unsafe {
            let ev = &*e;
            let (start, end) = (ev.start_mark.index as usize, ev.end_mark.index as usize);
            let event = match ev.type_ {
                unsafe_sys::YAML_STREAM_START_EVENT => Event::StreamStart,
                unsafe_sys::YAML_DOCUMENT_START_EVENT => Event::DocumentStart,
                unsafe_sys::YAML_DOCUMENT_END_EVENT => Event::DocumentEnd,
                unsafe_sys::YAML_ALIAS_EVENT => {
                    Event::Alias { anchor: c_bytes(ev.data.alias.anchor).unwrap_or_default() }
                }
                unsafe_sys::YAML_SCALAR_EVENT => {
                    let s = ev.data.scalar;
                    let bytes = std::slice::from_raw_parts(s.value, s.length as usize);
                    Event::Scalar {
                        // libyaml hands out UTF-8 (it validated the input and writes valid
                        // escapes); anything else reads as empty rather than failing.
                        value: std::str::from_utf8(bytes).unwrap_or_default(),
                        style: match s.style {
                            unsafe_sys::YAML_SINGLE_QUOTED_SCALAR_STYLE => ScalarStyle::SingleQuoted,
                            unsafe_sys::YAML_DOUBLE_QUOTED_SCALAR_STYLE => ScalarStyle::DoubleQuoted,
                            unsafe_sys::YAML_LITERAL_SCALAR_STYLE => ScalarStyle::Literal,
                            unsafe_sys::YAML_FOLDED_SCALAR_STYLE => ScalarStyle::Folded,
                            _ => ScalarStyle::Plain,
                        },
                        anchor: c_bytes(s.anchor),
                        tagged: !s.tag.is_null(),
                    }
                }
                unsafe_sys::YAML_SEQUENCE_START_EVENT => {
                    let s = ev.data.sequence_start;
                    Event::SequenceStart {
                        anchor: c_bytes(s.anchor),
                        tagged: !s.tag.is_null(),
                        flow: s.style == unsafe_sys::YAML_FLOW_SEQUENCE_STYLE,
                    }
                }
                unsafe_sys::YAML_SEQUENCE_END_EVENT => Event::SequenceEnd,
                unsafe_sys::YAML_MAPPING_START_EVENT => {
                    let s = ev.data.mapping_start;
                    Event::MappingStart {
                        anchor: c_bytes(s.anchor),
                        tagged: !s.tag.is_null(),
                        flow: s.style == unsafe_sys::YAML_FLOW_MAPPING_STYLE,
                    }
                }
                unsafe_sys::YAML_MAPPING_END_EVENT => Event::MappingEnd,
                _ => Event::StreamEnd,
            };
            let stream_end = matches!(event, Event::StreamEnd);
            let r = f(event, start, end);
            unsafe_sys::yaml_event_delete(e);
            if stream_end {
                self.done = true;
            }
            r
        };
        Ok(Some(out))
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        if self.init {
            // SAFETY: initialised, deleted once; no event is alive (each is deleted in `next`).
            unsafe { unsafe_sys::yaml_parser_delete(self.raw.as_mut_ptr()) };
        }
    }
}
