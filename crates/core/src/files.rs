//! Folders and files the gateway creates are its owner's alone — folders `0700`, files
//! `0600` — wherever they are created: the state store holds password hashes and the key
//! client secrets are hashed under, a warehouse holds a tenant's business. What already
//! exists is left as its owner set it.

use std::io;
use std::path::Path;

/// Creates `dir` and any missing parents, each readable by the owner only.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Creates `file` empty and readable by the owner only, unless it exists.
pub fn private_file(file: &Path) -> io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    match opts.open(file) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn what_it_creates_is_the_owners_alone_and_what_exists_stays() {
        let root = tempfile_dir();
        let dir = root.join("a/b");
        super::private_dir(&dir).unwrap();
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&root.join("a")), 0o700);
        assert_eq!(mode(&dir), 0o700);
        let file = dir.join("state.sqlite");
        super::private_file(&file).unwrap();
        assert_eq!(mode(&file), 0o600);
        std::fs::write(&file, b"kept").unwrap();
        super::private_file(&file).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"kept");
        std::fs::remove_dir_all(&root).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("pp-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        p
    }
}
