//! The one engine for sorting and field selection (SPEC.md sections 2 and
//! 3), on JSON text. Every path that re-applies a query (JavaScript values,
//! the document store, the offline cache) runs these functions; none reads
//! the rules a second time.
//!
//! - [`order`]: the value order, as order keys compared byte by byte;
//! - [`sort`]: sort keys read from documents, the default order, stable
//!   partial sorting;
//! - [`select`]: a selection compiled into a plan, and the one executor
//!   that applies it to text;
//! - [`list`]: lists and documents as text (framing, the values the engine
//!   reads);
//! - [`apply`]: a whole query over a list: sorting, `offset`, `limit`,
//!   selection;
//! - [`local`]: the same on documents that live in JavaScript.

pub mod apply;
pub mod list;
pub mod local;
pub mod order;
pub mod select;
pub mod sort;
