//! Re-applying sorting and field selection to documents held locally.
