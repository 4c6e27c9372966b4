//! A bound on the temporary files one query may write. SQLite spills sorts, `DISTINCT`,
//! `GROUP BY` and materialised subqueries to temporary files and has no limit of its own on
//! their size, so warehouse connections open through a thin VFS (`pp_bounded`) that is the
//! platform's default VFS except for temporary files: each one is charged to the query that
//! opened it (the [`Budget`] armed on that thread), and a write past the budget fails with
//! `SQLITE_FULL`, which the query reports as `query_too_large`.
//!
//! The shim never touches the main database file: its I/O methods stay the platform's own.
//! A temporary file gets a copy of the platform's method table with `xWrite`, `xTruncate`
//! and `xClose` replaced; its size and budget live in a small record after the platform's
//! file structure.

use std::cell::RefCell;
use std::ffi::{CStr, c_char, c_int};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, OnceLock};

use rusqlite::ffi;

/// The VFS name warehouse connections open with.
pub const VFS_NAME: &CStr = c"pp_bounded";

/// Bytes of temporary files one query may hold at once.
#[derive(Debug)]
pub struct Budget {
    used: AtomicI64,
    limit: i64,
    refused: AtomicBool,
}

impl Budget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Arc<Self> {
        Arc::new(Self {
            used: AtomicI64::new(0),
            limit: i64::try_from(limit).unwrap_or(i64::MAX),
            refused: AtomicBool::new(false),
        })
    }

    /// Whether a write was refused for going past the budget.
    pub fn exhausted(&self) -> bool {
        self.refused.load(Ordering::Relaxed)
    }

    /// Adds `delta` bytes (negative when a file shrinks or closes); refuses growth past the
    /// limit and remembers that it did.
    fn charge(&self, delta: i64) -> bool {
        if delta > 0 && self.used.load(Ordering::Relaxed) + delta > self.limit {
            self.refused.store(true, Ordering::Relaxed);
            return false;
        }
        self.used.fetch_add(delta, Ordering::Relaxed);
        true
    }
}

thread_local! {
    static ARMED: RefCell<Option<Arc<Budget>>> = const { RefCell::new(None) };
}

/// Charges the temporary files this thread opens to `budget` until the guard drops.
pub fn arm(budget: Arc<Budget>) -> Armed {
    ARMED.with(|a| *a.borrow_mut() = Some(budget));
    Armed(())
}

/// While alive, this thread's temporary files are charged to a budget.
pub struct Armed(());

impl Drop for Armed {
    fn drop(&mut self) {
        ARMED.with(|a| *a.borrow_mut() = None);
    }
}

/// Registers the VFS once; later calls return the first outcome.
pub fn register() -> Result<(), String> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| unsafe { install() }).clone()
}

/// What a temporary file carries after the platform's own structure.
struct Extra {
    methods: *mut ffi::sqlite3_io_methods,
    real: *const ffi::sqlite3_io_methods,
    budget: Arc<Budget>,
    size: i64,
}

/// Where [`Extra`] sits in a file structure (the platform's size, rounded up).
static EXTRA_AT: OnceLock<usize> = OnceLock::new();

unsafe fn extra<'a>(file: *mut ffi::sqlite3_file) -> &'a mut Extra {
    let at = *EXTRA_AT.get().expect("registered before use");
    unsafe { &mut *((file as *mut u8).add(at) as *mut Extra) }
}

unsafe fn install() -> Result<(), String> {
    let root = unsafe { ffi::sqlite3_vfs_find(std::ptr::null()) };
    if root.is_null() {
        return Err("SQLite has no default VFS".into());
    }
    let r = unsafe { &*root };
    let align = std::mem::align_of::<Extra>();
    let at = (r.szOsFile as usize).div_ceil(align) * align;
    EXTRA_AT.set(at).ok();
    let size = at + std::mem::size_of::<Extra>();
    let vfs = Box::new(ffi::sqlite3_vfs {
        iVersion: r.iVersion,
        szOsFile: c_int::try_from(size).map_err(|e| e.to_string())?,
        mxPathname: r.mxPathname,
        pNext: std::ptr::null_mut(),
        zName: VFS_NAME.as_ptr(),
        pAppData: root.cast(),
        xOpen: Some(open),
        xDelete: Some(delete),
        xAccess: Some(access),
        xFullPathname: Some(full_pathname),
        xDlOpen: None,
        xDlError: None,
        xDlSym: None,
        xDlClose: None,
        xRandomness: Some(randomness),
        xSleep: Some(sleep),
        xCurrentTime: Some(current_time),
        xGetLastError: Some(last_error),
        xCurrentTimeInt64: Some(current_time64),
        xSetSystemCall: None,
        xGetSystemCall: None,
        xNextSystemCall: None,
    });
    let rc = unsafe { ffi::sqlite3_vfs_register(Box::into_raw(vfs), 0) };
    if rc != ffi::SQLITE_OK {
        return Err(format!("registering the warehouse VFS failed ({rc})"));
    }
    Ok(())
}

unsafe fn root(vfs: *mut ffi::sqlite3_vfs) -> *mut ffi::sqlite3_vfs {
    unsafe { (*vfs).pAppData.cast() }
}

const TEMPORARY: c_int = ffi::SQLITE_OPEN_TEMP_DB
    | ffi::SQLITE_OPEN_TEMP_JOURNAL
    | ffi::SQLITE_OPEN_TRANSIENT_DB
    | ffi::SQLITE_OPEN_SUBJOURNAL;

unsafe extern "C" fn open(
    vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out: *mut c_int,
) -> c_int {
    let root = unsafe { root(vfs) };
    let rc = unsafe { ((*root).xOpen.expect("xOpen"))(root, name, file, flags, out) };
    if rc != ffi::SQLITE_OK || flags & TEMPORARY == 0 {
        return rc;
    }
    let Some(budget) = ARMED.with(|a| a.borrow().clone()) else {
        return rc;
    };
    let real = unsafe { (*file).pMethods };
    if real.is_null() {
        return rc;
    }
    let mut methods = Box::new(unsafe { std::ptr::read(real) });
    methods.xWrite = Some(write);
    methods.xTruncate = Some(truncate);
    methods.xClose = Some(close);
    let methods = Box::into_raw(methods);
    let at = *EXTRA_AT.get().expect("registered");
    unsafe {
        std::ptr::write(
            (file as *mut u8).add(at) as *mut Extra,
            Extra {
                methods,
                real,
                budget,
                size: 0,
            },
        );
        (*file).pMethods = methods;
    }
    rc
}

unsafe extern "C" fn write(
    file: *mut ffi::sqlite3_file,
    data: *const std::ffi::c_void,
    amount: c_int,
    offset: ffi::sqlite3_int64,
) -> c_int {
    let x = unsafe { extra(file) };
    let end = offset + i64::from(amount);
    if end > x.size {
        if !x.budget.charge(end - x.size) {
            return ffi::SQLITE_FULL;
        }
        x.size = end;
    }
    unsafe { ((*x.real).xWrite.expect("xWrite"))(file, data, amount, offset) }
}

unsafe extern "C" fn truncate(file: *mut ffi::sqlite3_file, size: ffi::sqlite3_int64) -> c_int {
    let x = unsafe { extra(file) };
    if size < x.size {
        x.budget.charge(size - x.size);
        x.size = size;
    }
    unsafe { ((*x.real).xTruncate.expect("xTruncate"))(file, size) }
}

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    let x = unsafe { extra(file) };
    let real = x.real;
    let methods = x.methods;
    x.budget.charge(-x.size);
    unsafe {
        (*file).pMethods = real;
        std::ptr::drop_in_place(x as *mut Extra);
        drop(Box::from_raw(methods));
        ((*real).xClose.expect("xClose"))(file)
    }
}

unsafe extern "C" fn delete(vfs: *mut ffi::sqlite3_vfs, name: *const c_char, sync: c_int) -> c_int {
    let r = unsafe { root(vfs) };
    unsafe { ((*r).xDelete.expect("xDelete"))(r, name, sync) }
}

unsafe extern "C" fn access(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    flags: c_int,
    out: *mut c_int,
) -> c_int {
    let r = unsafe { root(vfs) };
    unsafe { ((*r).xAccess.expect("xAccess"))(r, name, flags, out) }
}

unsafe extern "C" fn full_pathname(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    n: c_int,
    out: *mut c_char,
) -> c_int {
    let r = unsafe { root(vfs) };
    unsafe { ((*r).xFullPathname.expect("xFullPathname"))(r, name, n, out) }
}

unsafe extern "C" fn randomness(vfs: *mut ffi::sqlite3_vfs, n: c_int, out: *mut c_char) -> c_int {
    let r = unsafe { root(vfs) };
    unsafe { ((*r).xRandomness.expect("xRandomness"))(r, n, out) }
}

unsafe extern "C" fn sleep(vfs: *mut ffi::sqlite3_vfs, micros: c_int) -> c_int {
    let r = unsafe { root(vfs) };
    unsafe { ((*r).xSleep.expect("xSleep"))(r, micros) }
}

unsafe extern "C" fn current_time(vfs: *mut ffi::sqlite3_vfs, out: *mut f64) -> c_int {
    let r = unsafe { root(vfs) };
    unsafe { ((*r).xCurrentTime.expect("xCurrentTime"))(r, out) }
}

unsafe extern "C" fn last_error(vfs: *mut ffi::sqlite3_vfs, n: c_int, out: *mut c_char) -> c_int {
    let r = unsafe { root(vfs) };
    unsafe { ((*r).xGetLastError.expect("xGetLastError"))(r, n, out) }
}

unsafe extern "C" fn current_time64(
    vfs: *mut ffi::sqlite3_vfs,
    out: *mut ffi::sqlite3_int64,
) -> c_int {
    let r = unsafe { root(vfs) };
    unsafe { ((*r).xCurrentTimeInt64.expect("xCurrentTimeInt64"))(r, out) }
}
