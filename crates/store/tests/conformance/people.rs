//! People: unique emails across tenants, lookups by id or email, disable and password resets.

use pp_store::NewPerson;

use crate::{Fixture, each_engine};

fn person<'a>(id: &'a str, tenant: &'a str, email: &'a str) -> NewPerson<'a> {
    NewPerson {
        id,
        tenant_id: tenant,
        email,
        display_name: "Ana",
        role: "member",
        password_hash: "h1",
    }
}

#[tokio::test]
async fn an_email_belongs_to_one_person_across_tenants() {
    each_engine(async |f: Fixture| {
        f.tenant("acme").await;
        f.tenant("zeta").await;
        let people = f.store.people();
        let p = people
            .insert(&person("p1", "acme", "ana@x.example"))
            .await
            .unwrap();
        assert_eq!(
            (p.role.as_str(), p.disabled_at),
            ("member", None),
            "{}",
            f.engine
        );
        let taken = people.insert(&person("p2", "zeta", "ana@x.example")).await;
        assert_eq!(taken.unwrap_err().kind.code(), "bad_params", "{}", f.engine);
        people
            .insert(&person("p3", "zeta", "bo@x.example"))
            .await
            .unwrap();

        assert_eq!(people.find("ana@x.example").await.unwrap().id, "p1");
        assert_eq!(people.find("p3").await.unwrap().email, "bo@x.example");
        assert_eq!(
            people.find("nobody").await.unwrap_err().kind.code(),
            "not_found"
        );
        assert!(people.by_email("cy@x.example").await.unwrap().is_none());
        let zeta: Vec<String> = people
            .list(Some("zeta"))
            .await
            .unwrap()
            .into_iter()
            .map(|p| p.id)
            .collect();
        assert_eq!(zeta, ["p3"], "{}", f.engine);
        assert_eq!(people.list(None).await.unwrap().len(), 2);
    })
    .await;
}

#[tokio::test]
async fn disabling_sticks_until_a_reset_enables() {
    each_engine(async |f: Fixture| {
        f.tenant("acme").await;
        let people = f.store.people();
        people
            .insert(&person("p1", "acme", "ana@x.example"))
            .await
            .unwrap();
        assert!(people.disable("p1").await.unwrap());
        assert!(!people.disable("p1").await.unwrap(), "already disabled");
        // a new hash without enabling keeps them disabled
        people.set_password("p1", "h2", false).await.unwrap();
        let p = people.find("p1").await.unwrap();
        assert_eq!(p.password_hash, "h2");
        assert!(p.disabled_at.is_some(), "{}", f.engine);
        people.set_password("p1", "h3", true).await.unwrap();
        assert!(people.find("p1").await.unwrap().disabled_at.is_none());
        let unknown = people.set_password("p9", "h", true).await;
        assert_eq!(unknown.unwrap_err().kind.code(), "not_found");
    })
    .await;
}
