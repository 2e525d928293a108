//! `sortDocuments`, `selectFields`, `applyQuery`: the local engine for JavaScript.
