//! Re-applying sorting and field selection to documents held locally, with
//! exactly the service's semantics (SPEC.md sections 2 and 3).
//!
//! - [`order`]: value kinds and their comparison, exact instants, `meta.id`
//!   as a decimal number;
//! - [`sort`]: sorting with the default order and tie-break, stable, keys
//!   read once, partial sort for a page;
//! - [`project`]: a [`Selection`](crate::Selection) applied to documents and
//!   list envelopes;
//! - [`plan`]: a selection compiled for an interpreter outside Rust
//!   (JavaScript objects projected where they live);
//! - [`apply`]: a whole [`Query`](crate::Query): sort, `offset`, `limit`,
//!   selection.

pub mod apply;
pub mod order;
pub mod plan;
pub mod project;
pub mod sort;

pub use apply::apply_query;
pub use order::{compare_ids, compare_values, kind, parse_instant, Kind};
pub use project::{select, select_any};
pub use sort::{sort_documents, SortValue};
