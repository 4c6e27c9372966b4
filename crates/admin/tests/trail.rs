//! The administration service over a real state store: whichever door acts — the service's
//! operator at the command line, or a tenant's admin in the console — the same methods run
//! and each change is recorded under the one who made it; a console admin's reach ends at
//! their own tenant, where another tenant's rows read as absent.

use pp_admin::{Admin, Operator};
use pp_auth::clients::PartnerApp;
use pp_auth::{PersonDetails, Role};
use pp_core::{Kind, TenantId};
use pp_store::{PersonRow, Store};
use serde_json::json;

struct World {
    _dir: tempfile::TempDir,
    store: Store,
    admin: Admin,
    operator: Operator,
}

async fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    for id in ["acme", "other"] {
        let t = TenantId::parse(id).unwrap();
        store
            .tenants()
            .create(&t, id, "sqlite:/nowhere")
            .await
            .unwrap();
    }
    World {
        admin: Admin::new(store.clone()),
        operator: Operator::service("admin:ops"),
        store,
        _dir: dir,
    }
}

/// A person of `tenant` with `role`, made by the service's operator.
async fn person(w: &World, tenant: &str, email: &str, role: Role) -> PersonRow {
    let details = PersonDetails {
        email,
        display_name: "Someone",
        role,
    };
    let made = w.admin.people(&w.operator);
    made.create(tenant, &details, Some("a long enough password 1"))
        .await
        .unwrap()
        .row
}

#[tokio::test]
async fn each_change_is_recorded_under_whoever_made_it_by_either_door() {
    let w = world().await;
    let ana = person(&w, "acme", "ana@acme.example", Role::Admin).await;
    let console = Operator::tenant_admin(&ana).unwrap();
    for (op, by) in [(&w.operator, "admin:ops"), (&console, "ana@acme.example")] {
        // the write policy
        let set = w.admin.policies(op);
        let shown = set.set("acme", &json!({ "maxItems": 50 })).await.unwrap();
        assert_eq!(shown.updated_by.as_deref(), Some(by));
        let row = w.store.policies().get("acme").await.unwrap().unwrap();
        assert_eq!(row.updated_by, by);
        // listing writes for a merchant
        let listings = w.admin.listings(op);
        listings.disable("acme", "A1").await.unwrap();
        assert!(listings.enable("acme", "A1").await.unwrap());
        let status = listings.status(Some("acme")).await.unwrap();
        assert_eq!(status.accounts[0].enabled_by, by);
        // intelligence switched off for an account
        let enrollment = w.admin.enrollment(op);
        enrollment.set("acme", 1, true, None).await.unwrap();
        assert!(
            enrollment
                .set("acme", 1, false, Some("audit"))
                .await
                .unwrap()
        );
        let off = enrollment.status("acme", 30).await.unwrap().switched_off;
        assert_eq!(off[0].changed_by, by);
        // a partner application
        let app = PartnerApp {
            name: "Reporting",
            redirect_uris: &["https://app.example/cb".to_owned()],
            scopes: "retail:read",
            confidential: true,
        };
        let made = w.admin.apps(op).register(Some("acme"), &app).await.unwrap();
        assert_eq!(made.row.created_by, by);
        assert_eq!(made.row.tenant_id.as_deref(), Some("acme"));
    }
}

#[tokio::test]
async fn a_console_admin_reaches_their_own_tenant_only() {
    let w = world().await;
    let ana = person(&w, "acme", "ana@acme.example", Role::Admin).await;
    let olga = person(&w, "other", "olga@other.example", Role::Admin).await;
    let theirs = w
        .admin
        .credentials(&w.operator)
        .create("other", None, "their etl")
        .await
        .unwrap();
    let console = Operator::tenant_admin(&ana).unwrap();

    let absent = |e: pp_core::Error| assert_eq!(e.kind, Kind::NotFound, "{e:?}");
    let creds = w.admin.credentials(&console);
    absent(creds.revoke(&theirs.row.id).await.unwrap_err());
    absent(creds.rotate(&theirs.row.client_id).await.err().unwrap());
    absent(creds.create("other", None, "mine now").await.err().unwrap());
    absent(creds.list(Some("other")).await.unwrap_err());
    assert!(
        creds
            .list(None)
            .await
            .unwrap()
            .iter()
            .all(|c| c.tenant_id == "acme")
    );
    absent(
        w.admin
            .people(&console)
            .disable(&olga.email)
            .await
            .unwrap_err(),
    );
    absent(w.admin.policies(&console).show("other").await.unwrap_err());
    assert!(w.admin.people(&console).list(None).await.unwrap().len() == 1);
    // the other tenant's credential still works: nothing was changed
    let still = w.store.credentials().find(&theirs.row.id).await.unwrap();
    assert!(still.revoked_at.is_none());

    // what only the service's operator does
    let refused = w.admin.listings(&console).switch("text", true, None).await;
    assert_eq!(refused.unwrap_err().kind, Kind::InsufficientScope);
    let refused = w
        .admin
        .tenants(&console)
        .create("third", None, None, None)
        .await;
    assert_eq!(refused.err().unwrap().kind, Kind::InsufficientScope);
    // nobody disables themselves, and a member administers nothing
    let me = w.admin.people(&console).disable(&ana.id).await.unwrap_err();
    assert_eq!(me.kind, Kind::BadParams, "{me:?}");
    let bob = person(&w, "acme", "bob@acme.example", Role::Member).await;
    assert!(Operator::tenant_admin(&bob).is_err());
}
