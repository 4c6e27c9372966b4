//! People: a tenant's users, signed in by email and password. Passwords are hashed with
//! argon2id (a fresh salt each time); an unknown email costs the same hash as a known one, so
//! a sign-in's time does not say who has an account. Admin commands (and the console) create,
//! list, disable and reset them; what a person's sign-ins do is recorded under their email.

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use pp_core::{Error, Kind, Result, TenantId};
use pp_store::{NewPerson, PersonRow, Store};

use crate::secret::{random_id, random_token};

/// Shortest password a person may choose.
pub const MIN_PASSWORD: usize = 12;
/// Longest password read (argon2 takes any length; a bound keeps a sign-in cheap).
pub const MAX_PASSWORD: usize = 256;

/// What a person may do in their tenant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Manages credentials, people, applications and connections; approves writes.
    Admin,
    /// Approves or rejects the writes the tenant's policy holds for a person.
    Approver,
    /// Signs in to applications and AI clients.
    Member,
}

impl Role {
    /// Reads `admin`, `approver` or `member`.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "admin" => Ok(Role::Admin),
            "approver" => Ok(Role::Approver),
            "member" => Ok(Role::Member),
            other => Err(Error::new(
                Kind::BadParams,
                format!("role '{other}' is not one of: admin, approver, member"),
            )),
        }
    }

    /// Whether a person of this role (as stored) may approve held writes: admins and
    /// approvers.
    pub fn may_approve(stored: &str) -> bool {
        matches!(stored, "admin" | "approver")
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Approver => "approver",
            Role::Member => "member",
        }
    }
}

/// A new person's details.
pub struct PersonDetails<'a> {
    pub email: &'a str,
    pub display_name: &'a str,
    pub role: Role,
}

/// A person and, when the gateway chose it, their first password (shown once).
pub struct CreatedPerson {
    pub row: PersonRow,
    pub generated_password: Option<String>,
}

/// `email` trimmed and lower-cased, if it looks like an address (one `@` with text on both
/// sides, a dot in the domain, no spaces, at most 254 characters).
pub fn normalize_email(email: &str) -> Result<String> {
    let e = email.trim().to_lowercase();
    let ok = e.len() <= 254
        && !e.chars().any(|c| c.is_whitespace() || c.is_control())
        && matches!(e.split_once('@'), Some((local, domain))
            if !local.is_empty() && domain.contains('.') && !domain.contains('@')
                && !domain.starts_with('.') && !domain.ends_with('.'));
    if !ok {
        return Err(Error::new(
            Kind::BadParams,
            format!("'{}' is not an email address", email.trim()),
        ));
    }
    Ok(e)
}

fn check_password(password: &str) -> Result<()> {
    let n = password.chars().count();
    if n < MIN_PASSWORD || password.len() > MAX_PASSWORD {
        return Err(Error::new(
            Kind::BadParams,
            format!("a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters"),
        ));
    }
    if password.trim() != password {
        return Err(Error::new(
            Kind::BadParams,
            "a password may not start or end with a space",
        ));
    }
    Ok(())
}

/// The argon2id PHC string of `password`.
pub fn hash_password(password: &str) -> Result<String> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| Error::internal_with("argon2", e))
}

fn verify_password(password: &str, stored: &str) -> bool {
    Argon2::default()
        .verify_password(password.as_bytes(), stored)
        .is_ok()
}

/// A password the gateway chooses: 24 base64url characters (144 random bits).
fn generated_password() -> Result<String> {
    Ok(random_token("")?.chars().take(24).collect())
}

/// The hash of `password` once checked, or of one the gateway chooses (returned to be shown
/// once).
fn password_hash_of(password: Option<&str>) -> Result<(String, Option<String>)> {
    match password {
        Some(p) => {
            check_password(p)?;
            Ok((hash_password(p)?, None))
        }
        None => {
            let chosen = generated_password()?;
            Ok((hash_password(&chosen)?, Some(chosen)))
        }
    }
}

/// Creates a person in `tenant`. Without `password` the gateway chooses one and returns it
/// once.
pub async fn create_person(
    store: &Store,
    tenant: &TenantId,
    details: &PersonDetails<'_>,
    password: Option<&str>,
) -> Result<CreatedPerson> {
    if store.tenants().get(tenant).await?.is_none() {
        return Err(Error::not_found(format!("no tenant '{tenant}'")));
    }
    let email = normalize_email(details.email)?;
    let name = details.display_name.trim();
    if name.is_empty() || name.chars().count() > 80 {
        return Err(Error::new(
            Kind::BadParams,
            "a display name is 1-80 characters",
        ));
    }
    pp_core::text::check_one_line("display name", name)?;
    let (hash, generated) = password_hash_of(password)?;
    let row = store
        .people()
        .insert(&NewPerson {
            id: &random_id("person_", 8)?,
            tenant_id: tenant.as_str(),
            email: &email,
            display_name: name,
            role: details.role.as_str(),
            password_hash: &hash,
        })
        .await?;
    Ok(CreatedPerson {
        row,
        generated_password: generated,
    })
}

/// The person named by id or by email (in any case).
/// The person named by id or email (an email is matched as normalised).
pub async fn find_person(store: &Store, id_or_email: &str) -> Result<PersonRow> {
    let key = normalize_email(id_or_email).unwrap_or_else(|_| id_or_email.trim().to_owned());
    store.people().find(&key).await
}

/// Sets a new password for the person named by id or email (the gateway chooses one without
/// `password`) and enables them again if disabled.
pub async fn reset_password(
    store: &Store,
    id_or_email: &str,
    password: Option<&str>,
) -> Result<CreatedPerson> {
    let row = find_person(store, id_or_email).await?;
    let (hash, generated) = password_hash_of(password)?;
    store.people().set_password(&row.id, &hash, true).await?;
    Ok(CreatedPerson {
        row: store.people().find(&row.id).await?,
        generated_password: generated,
    })
}

/// A signed-in person changes their own password: `new` follows the password rules, and
/// `current` must be right — a wrong one changes nothing and answers `false`, a failed
/// attempt the caller counts like a failed sign-in. Their sessions and grants end with the
/// change, this one included.
pub async fn change_password(
    store: &Store,
    person: &PersonRow,
    current: &str,
    new: &str,
) -> Result<bool> {
    check_password(new)?;
    if sign_in(store, &person.email, current).await?.is_none() {
        return Ok(false);
    }
    let new = new.to_owned();
    let hash = tokio::task::spawn_blocking(move || hash_password(&new))
        .await
        .map_err(|e| Error::internal_with("password hash", e))??;
    store
        .people()
        .set_password(&person.id, &hash, false)
        .await?;
    Ok(true)
}

/// Disables the person named by id or email; false if they already were.
pub async fn disable_person(store: &Store, id_or_email: &str) -> Result<(PersonRow, bool)> {
    let row = find_person(store, id_or_email).await?;
    let changed = store.people().disable(&row.id).await?;
    Ok((store.people().find(&row.id).await?, changed))
}

/// An admin of `tenant` (`by`) disables person `id` of the same tenant: their sessions,
/// grants, tokens and setup-code credentials end. Nobody disables themselves (another admin
/// must), and a person of another tenant reads as no person at all. Whether it changed.
pub async fn disable_person_of(
    store: &Store,
    tenant: &TenantId,
    id: &str,
    by: &PersonRow,
) -> Result<bool> {
    let target = match store.people().find(id).await {
        Ok(p) if p.tenant_id == tenant.as_str() => p,
        _ => return Err(Error::not_found(format!("no person '{id}'"))),
    };
    if target.id == by.id {
        return Err(Error::new(
            Kind::BadParams,
            "You cannot disable yourself; ask another admin.",
        ));
    }
    store.people().disable(&target.id).await
}

/// Verifies `password` against `hash` on a blocking thread (argon2 spends ~20 ms of CPU and
/// 19 MiB; the async workers stay free).
async fn verify_off_thread(password: &str, hash: String) -> Result<bool> {
    let password = password.to_owned();
    tokio::task::spawn_blocking(move || verify_password(&password, &hash))
        .await
        .map_err(|e| Error::internal_with("password check", e))
}

/// The person signing in with `email` and `password`, if both are right and the person is
/// not disabled. Every failure is the same `None`: a page says "wrong email or password" and
/// never which. The hash runs on a blocking thread; callers bound how many run at once.
pub async fn sign_in(store: &Store, email: &str, password: &str) -> Result<Option<PersonRow>> {
    // the hash of a password no one has, verified when the email is unknown so the answer
    // takes as long as for a known one
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    if password.len() > MAX_PASSWORD {
        return Ok(None);
    }
    let row = match normalize_email(email) {
        Ok(e) => store.people().by_email(&e).await?,
        Err(_) => None,
    };
    let Some(row) = row else {
        let decoy = match DECOY.get() {
            Some(d) => d.clone(),
            None => {
                let d = hash_password(&generated_password()?)?;
                DECOY.get_or_init(|| d).clone()
            }
        };
        let _ = verify_off_thread(password, decoy).await?;
        return Ok(None);
    };
    let good = verify_off_thread(password, row.password_hash.clone()).await?;
    Ok((good && row.disabled_at.is_none()).then_some(row))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_lower_cased_and_checked() {
        assert_eq!(
            normalize_email(" Ana@Example.COM ").unwrap(),
            "ana@example.com"
        );
        for bad in [
            "ana",
            "@example.com",
            "ana@",
            "ana@example",
            "a na@x.com",
            "a@b@c.com",
        ] {
            assert!(normalize_email(bad).is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn an_admin_disables_people_of_their_tenant_but_not_themselves() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let (acme, beta) = (
            TenantId::parse("acme").unwrap(),
            TenantId::parse("beta").unwrap(),
        );
        for t in [&acme, &beta] {
            store
                .tenants()
                .create(t, t.as_str(), "sqlite:/dev/null")
                .await
                .unwrap();
        }
        let add = async |t: &TenantId, email: &str, role: Role| {
            let d = PersonDetails {
                email,
                display_name: "P",
                role,
            };
            create_person(&store, t, &d, None).await.unwrap().row
        };
        let admin = add(&acme, "admin@acme.example", Role::Admin).await;
        let member = add(&acme, "m@acme.example", Role::Member).await;
        let other = add(&beta, "b@beta.example", Role::Member).await;
        let refused = disable_person_of(&store, &acme, &admin.id, &admin).await;
        assert!(refused.unwrap_err().message().contains("yourself"));
        let foreign = disable_person_of(&store, &acme, &other.id, &admin).await;
        assert_eq!(foreign.unwrap_err().kind, Kind::NotFound);
        assert!(
            disable_person_of(&store, &acme, &member.id, &admin)
                .await
                .unwrap()
        );
        assert!(
            store
                .people()
                .find(&other.id)
                .await
                .unwrap()
                .disabled_at
                .is_none()
        );
    }

    #[test]
    fn passwords_are_argon2id_and_verify_only_themselves() {
        let h = hash_password("correct horse battery").unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify_password("correct horse battery", &h));
        assert!(!verify_password("correct horse batterY", &h));
        assert_ne!(h, hash_password("correct horse battery").unwrap(), "salted");
        assert!(check_password("short").is_err());
        assert!(check_password(" leading space here").is_err());
    }

    #[tokio::test]
    async fn a_person_signs_in_until_disabled_and_a_reset_lets_them_in_again() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let t = TenantId::parse("acme").unwrap();
        store.tenants().create(&t, "Acme", "x").await.unwrap();
        let details = PersonDetails {
            email: "Ana@Example.com",
            display_name: "Ana Lima",
            role: Role::Admin,
        };
        let p = create_person(&store, &t, &details, Some("a long passphrase"))
            .await
            .unwrap();
        assert_eq!(
            (p.row.email.as_str(), p.row.role.as_str()),
            ("ana@example.com", "admin")
        );
        assert!(p.generated_password.is_none());
        // the email is taken, whatever its case
        let again = create_person(&store, &t, &details, None).await;
        assert_eq!(again.err().unwrap().kind.code(), "bad_params");

        let signed = sign_in(&store, "ANA@example.com", "a long passphrase")
            .await
            .unwrap();
        assert_eq!(signed.unwrap().id, p.row.id);
        assert!(
            sign_in(&store, "ana@example.com", "a long passphrasE")
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            sign_in(&store, "bo@example.com", "a long passphrase")
                .await
                .unwrap()
                .is_none()
        );

        let (row, changed) = disable_person(&store, "ana@example.com").await.unwrap();
        assert!(changed && row.disabled_at.is_some());
        assert!(
            sign_in(&store, "ana@example.com", "a long passphrase")
                .await
                .unwrap()
                .is_none()
        );

        let reset = reset_password(&store, &p.row.id, None).await.unwrap();
        let fresh = reset.generated_password.unwrap();
        assert!(reset.row.disabled_at.is_none());
        assert!(
            sign_in(&store, "ana@example.com", "a long passphrase")
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            sign_in(&store, "ana@example.com", &fresh)
                .await
                .unwrap()
                .is_some()
        );
    }
}
