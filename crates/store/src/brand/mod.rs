//! Brand memory's rows: context documents with their history, each brand's lifecycle, and the
//! timeline of events. The rules of what may be written (types, stakes, attribution) live in
//! the brand crate; here are the atomic steps: a document written only at the revision its
//! writer read, a lifecycle change and its structural event in one transaction, a
//! corroboration that reopens its stake and records itself together.

mod docs;
pub(crate) mod timeline;

use crate::db::Db;

pub use docs::{DocPut, DocRow, DocSummaryRow, Put};
pub use timeline::{Corroborated, EventRow, LifecycleRow, LifecycleSet, NewEvent, TimelineQuery};

/// Who writes: the signed-in name and the surface it came through.
#[derive(Debug, Clone)]
pub struct Author {
    pub actor: String,
    pub surface: String,
}

/// The brand-memory aggregate.
pub struct Brand<'a>(pub(crate) &'a Db);
