//! The document store: documents by `meta.id`, with sorted indexes.
