//! Every schema step of the state store, in order, written once: [`Step::Both`] in SQLite's
//! spelling with `BYTEWISE` where PostgreSQL must compare a key's bytes (`COLLATE "C"`, as
//! SQLite compares them), rendered for each engine by `super::render`; [`Step::Each`] only where
//! the engines cannot say the same thing in one text (their triggers). Append a step; never
//! edit a released one (`tests/conformance/migrations.rs` holds the two engines to the same
//! tables, columns, indexes and constraints, and every step to apply over the one before).

use super::Step::{self, Both, Each};

pub(super) const STEPS: &[Step] = &[
    // 1: tenants, service credentials, access tokens.
    Both("CREATE TABLE tenants (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        warehouse TEXT NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE credentials (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        client_id TEXT NOT NULL UNIQUE,
        secret_hash TEXT NOT NULL,
        label TEXT NOT NULL,
        scopes TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        rotated_at INTEGER,
        revoked_at INTEGER
    );
    CREATE INDEX credentials_tenant ON credentials(tenant_id);
    CREATE TABLE access_tokens (
        token_hash BLOB PRIMARY KEY,
        credential_id TEXT NOT NULL REFERENCES credentials(id),
        tenant_id TEXT NOT NULL,
        scopes TEXT NOT NULL,
        issued_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX access_tokens_credential ON access_tokens(credential_id);"),

    // 2: keys the service makes for itself (cursor signing).
    Both("CREATE TABLE service_keys (
        name TEXT PRIMARY KEY,
        value BLOB NOT NULL,
        created_at INTEGER NOT NULL
    );"),

    // 3: forecast state (documents with tombstones, change log, home logins) and API usage.
    Both("CREATE TABLE forecast_docs (
        tenant_id TEXT NOT NULL,
        key TEXT BYTEWISE NOT NULL,
        kind TEXT NOT NULL,
        scope_id TEXT BYTEWISE NOT NULL,
        month TEXT,
        version INTEGER NOT NULL,
        doc TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        updated_by TEXT NOT NULL,
        PRIMARY KEY (tenant_id, key)
    ) WITHOUT ROWID;
    CREATE TABLE forecast_revisions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant_id TEXT NOT NULL,
        key TEXT NOT NULL,
        scope_id TEXT NOT NULL,
        month TEXT,
        field TEXT NOT NULL,
        before TEXT,
        after TEXT,
        version INTEGER NOT NULL,
        reason TEXT,
        actor TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX forecast_revisions_scope ON forecast_revisions (tenant_id, scope_id, id);
    CREATE TABLE forecast_homes (
        tenant_id TEXT NOT NULL,
        database TEXT NOT NULL,
        login TEXT NOT NULL,
        since TEXT NOT NULL,
        PRIMARY KEY (tenant_id, database)
    );
    CREATE TABLE api_usage (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant_id TEXT NOT NULL,
        credential_id TEXT NOT NULL,
        route TEXT NOT NULL,
        status INTEGER NOT NULL,
        charged INTEGER NOT NULL,
        at INTEGER NOT NULL
    );
    CREATE INDEX api_usage_tenant ON api_usage (tenant_id, at);"),

    // 4: brand memory: context documents with history, brand lifecycle, the timeline.
    Both("CREATE TABLE context_docs (
        tenant_id TEXT NOT NULL,
        brand TEXT NOT NULL,
        type TEXT NOT NULL,
        name TEXT NOT NULL,
        revision INTEGER NOT NULL,
        content TEXT NOT NULL,
        hash TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        updated_by TEXT NOT NULL,
        PRIMARY KEY (tenant_id, brand, type, name)
    ) WITHOUT ROWID;
    CREATE TABLE context_doc_revisions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant_id TEXT NOT NULL,
        brand TEXT NOT NULL,
        type TEXT NOT NULL,
        name TEXT NOT NULL,
        revision INTEGER NOT NULL,
        content TEXT NOT NULL,
        hash TEXT NOT NULL,
        actor TEXT NOT NULL,
        surface TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE brand_lifecycle (
        tenant_id TEXT NOT NULL,
        brand TEXT NOT NULL,
        state TEXT NOT NULL,
        changed_at TEXT NOT NULL,
        changed_by TEXT NOT NULL,
        surface TEXT NOT NULL,
        reason_code TEXT,
        PRIMARY KEY (tenant_id, brand)
    ) WITHOUT ROWID;
    CREATE TABLE timeline_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant_id TEXT NOT NULL,
        brand TEXT NOT NULL,
        family TEXT NOT NULL,
        kind TEXT NOT NULL,
        occurred_on TEXT NOT NULL,
        category TEXT,
        starts_on TEXT,
        ends_on TEXT,
        interpretation TEXT,
        status TEXT,
        closes_on TEXT,
        source TEXT NOT NULL,
        affects TEXT NOT NULL,
        tags TEXT NOT NULL,
        note TEXT,
        reason_code TEXT,
        on_behalf_of TEXT,
        parent_id INTEGER,
        payload TEXT NOT NULL,
        actor TEXT NOT NULL,
        surface TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX timeline_events_order ON timeline_events (tenant_id, occurred_on, id);"),

    // 5: marketplace connections (issue 5): the provider refresh token of each connected
    // merchant login, sealed with the configured secret key.
    Both("CREATE TABLE marketplace_connections (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        kind TEXT NOT NULL,
        merchant TEXT NOT NULL,
        region TEXT NOT NULL,
        status TEXT NOT NULL,
        sealed_token BLOB NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (tenant_id, kind, merchant)
    );"),

    // 6: jobs as rows (issue 6): long provider work in steps under a lease, and the item
    // results each step records.
    Both("CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        kind TEXT NOT NULL,
        merchant TEXT,
        status TEXT NOT NULL,
        progress_done INTEGER NOT NULL,
        progress_total INTEGER NOT NULL,
        attempts INTEGER NOT NULL,
        input TEXT NOT NULL,
        state TEXT NOT NULL,
        error TEXT,
        run_after INTEGER NOT NULL,
        lease_owner TEXT,
        lease_until INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        finished_at TEXT
    );
    CREATE INDEX jobs_ready ON jobs (status, run_after);
    CREATE TABLE job_items (
        job_id TEXT NOT NULL REFERENCES jobs(id),
        seq INTEGER NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (job_id, seq)
    ) WITHOUT ROWID;"),

    // 7: the report ledger (issue 6): every report create's intent, written before it is
    // sent, under a canonical hash of the request and the caller's Idempotency-Key.
    Both("CREATE TABLE report_ledger (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        family TEXT NOT NULL,
        account TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        idempotency_key TEXT,
        status TEXT NOT NULL,
        provider_report_id TEXT,
        error TEXT,
        sent_at INTEGER NOT NULL,
        lease_until INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE UNIQUE INDEX report_ledger_key ON report_ledger (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
    CREATE INDEX report_ledger_request ON report_ledger (tenant_id, family, account, request_hash, sent_at);
    CREATE INDEX report_ledger_provider ON report_ledger (tenant_id, provider_report_id);"),

    // 8: pacing buckets: the provider's usage plans, shared by every gateway process on this
    // store (wall-clock milliseconds).
    Both("CREATE TABLE pacing_buckets (
        key TEXT PRIMARY KEY,
        tokens REAL NOT NULL,
        at_ms INTEGER NOT NULL
    ) WITHOUT ROWID;"),

    // 9: what the report watch last saw of each created report: the provider's report, our
    // reason (`stuck` included) and when it looked.
    Both("ALTER TABLE report_ledger ADD COLUMN provider_report TEXT;
    ALTER TABLE report_ledger ADD COLUMN reason TEXT;
    ALTER TABLE report_ledger ADD COLUMN checked_at INTEGER;"),

    // 10: MCP Streamable HTTP sessions, shared by every instance on the store.
    Both("CREATE TABLE mcp_sessions (
        id_hash TEXT PRIMARY KEY,
        credential_id TEXT NOT NULL,
        tenant_id TEXT NOT NULL,
        version TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        last_seen_ms INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX mcp_sessions_credential ON mcp_sessions (credential_id, last_seen_ms);
    CREATE INDEX mcp_sessions_tenant ON mcp_sessions (tenant_id);"),

    // 11: audited advertising writes: the plans dry runs issue, and the audit log of commits
    // (one row per plan at most; a key names one commit).
    Both("CREATE TABLE ads_plans (
        id TEXT BYTEWISE PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        credential_id TEXT NOT NULL,
        actor TEXT NOT NULL,
        operation TEXT NOT NULL,
        call_hash TEXT NOT NULL,
        plan_hash TEXT NOT NULL,
        body TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        expires_ms INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX ads_plans_expiry ON ads_plans (expires_ms);
    CREATE TABLE ads_audit (
        id TEXT BYTEWISE PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        plan_id TEXT NOT NULL,
        credential_id TEXT NOT NULL,
        actor TEXT NOT NULL,
        surface TEXT NOT NULL,
        operation TEXT NOT NULL,
        merchant TEXT NOT NULL,
        profile_id TEXT,
        plan_hash TEXT NOT NULL,
        idempotency_key TEXT,
        snapshot TEXT NOT NULL,
        sent TEXT,
        answer TEXT,
        status TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        finished_ms INTEGER
    ) WITHOUT ROWID;
    CREATE UNIQUE INDEX ads_audit_plan ON ads_audit (tenant_id, plan_id);
    CREATE UNIQUE INDEX ads_audit_key ON ads_audit (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
    CREATE INDEX ads_audit_time ON ads_audit (tenant_id, created_ms, id);"),

    // 12: listing writes: the merchants an administrator enabled them for, and the service's
    // global switches (listing text and media writes) that every instance reads.
    Both("CREATE TABLE listing_accounts (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        merchant TEXT BYTEWISE NOT NULL,
        enabled_by TEXT NOT NULL,
        enabled_ms INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, merchant)
    ) WITHOUT ROWID;
    CREATE TABLE service_switches (
        name TEXT PRIMARY KEY,
        is_off INTEGER NOT NULL,
        reason TEXT,
        changed_by TEXT NOT NULL,
        changed_ms INTEGER NOT NULL
    ) WITHOUT ROWID;"),

    // 13: intelligence: every run (sync or async, metered by request id), the computing
    // slots that cap each account's concurrent runs across instances, and the accounts an
    // administrator switched intelligence off for.
    Both("CREATE TABLE intelligence_runs (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        request_id TEXT NOT NULL,
        request_version TEXT NOT NULL,
        accounts TEXT NOT NULL,
        params TEXT NOT NULL,
        mode TEXT NOT NULL,
        status TEXT NOT NULL,
        job_id TEXT,
        actor TEXT NOT NULL,
        credential_id TEXT NOT NULL,
        surface TEXT NOT NULL,
        result TEXT,
        error TEXT,
        created_ms INTEGER NOT NULL,
        started_ms INTEGER,
        finished_ms INTEGER,
        compute_ms INTEGER
    ) WITHOUT ROWID;
    CREATE INDEX intelligence_runs_meter ON intelligence_runs (tenant_id, request_id, created_ms);
    CREATE TABLE intelligence_slots (
        run_id TEXT NOT NULL,
        account TEXT BYTEWISE NOT NULL,
        tenant_id TEXT NOT NULL,
        lease_until_ms INTEGER NOT NULL,
        PRIMARY KEY (run_id, account)
    ) WITHOUT ROWID;
    CREATE INDEX intelligence_slots_account ON intelligence_slots (tenant_id, account);
    CREATE TABLE intelligence_optouts (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        seller_id INTEGER NOT NULL,
        reason TEXT,
        changed_by TEXT NOT NULL,
        changed_ms INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, seller_id)
    ) WITHOUT ROWID;"),

    // 14: people (tenant users signed in by password).
    Both("CREATE TABLE people (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        email TEXT NOT NULL UNIQUE,
        display_name TEXT NOT NULL,
        role TEXT NOT NULL,
        password_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        password_set_at INTEGER NOT NULL,
        disabled_at INTEGER
    );
    CREATE INDEX people_tenant ON people(tenant_id);"),

    // 15: sign-in: browser sessions, OAuth clients (partner applications and dynamically
    // registered ones), grants with their codes, access and refresh tokens, setup codes, and
    // the person a service credential acts for (one made from a setup code).
    Both("CREATE TABLE browser_sessions (
        id_hash BLOB PRIMARY KEY,
        person_id TEXT NOT NULL REFERENCES people(id),
        csrf TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX browser_sessions_person ON browser_sessions(person_id);
    CREATE TABLE oauth_clients (
        client_id TEXT PRIMARY KEY,
        tenant_id TEXT REFERENCES tenants(id),
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        secret_hash TEXT,
        redirect_uris TEXT NOT NULL,
        scopes TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        created_by TEXT NOT NULL,
        revoked_at INTEGER
    );
    CREATE INDEX oauth_clients_tenant ON oauth_clients(tenant_id, kind);
    CREATE TABLE oauth_grants (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        person_id TEXT NOT NULL REFERENCES people(id),
        client_id TEXT REFERENCES oauth_clients(client_id),
        scopes TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
    );
    CREATE INDEX oauth_grants_person ON oauth_grants(person_id);
    CREATE INDEX oauth_grants_client ON oauth_grants(client_id);
    CREATE TABLE oauth_codes (
        code_hash BLOB PRIMARY KEY,
        client_id TEXT NOT NULL REFERENCES oauth_clients(client_id),
        person_id TEXT NOT NULL REFERENCES people(id),
        redirect_uri TEXT NOT NULL,
        scopes TEXT NOT NULL,
        challenge TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        grant_id TEXT
    ) WITHOUT ROWID;
    CREATE TABLE grant_tokens (
        token_hash BLOB PRIMARY KEY,
        grant_id TEXT NOT NULL REFERENCES oauth_grants(id),
        kind TEXT NOT NULL,
        scopes TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
    ) WITHOUT ROWID;
    CREATE INDEX grant_tokens_grant ON grant_tokens(grant_id);
    CREATE TABLE setup_codes (
        code_hash BLOB PRIMARY KEY,
        person_id TEXT NOT NULL REFERENCES people(id),
        label TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER,
        credential_id TEXT
    ) WITHOUT ROWID;
    CREATE INDEX setup_codes_person ON setup_codes(person_id);
    ALTER TABLE credentials ADD COLUMN person_id TEXT REFERENCES people(id);"),

    // 16: the auth epoch: one counter that every change which may end a token's life moves
    // (a revocation, a rotation, a disabled person or application, a live token deleted), in
    // the same transaction, so every instance's verified-token cache knows when to forget.
    // Expired tokens swept away and refresh tokens marked used move nothing.
    Each {
        sqlite: "CREATE TABLE auth_epoch (id INTEGER PRIMARY KEY, epoch INTEGER NOT NULL);
    INSERT INTO auth_epoch (id, epoch) VALUES (1, 0);
    CREATE TRIGGER auth_epoch_credentials_u AFTER UPDATE ON credentials BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_credentials_d AFTER DELETE ON credentials BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_access_tokens_u AFTER UPDATE ON access_tokens BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_access_tokens_d AFTER DELETE ON access_tokens WHEN OLD.expires_at > CAST(strftime('%s', 'now') AS INTEGER) BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_grant_tokens_u AFTER UPDATE ON grant_tokens WHEN NEW.kind = 'access' BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_grant_tokens_d AFTER DELETE ON grant_tokens WHEN OLD.expires_at > CAST(strftime('%s', 'now') AS INTEGER) BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_oauth_grants_u AFTER UPDATE ON oauth_grants BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_oauth_grants_d AFTER DELETE ON oauth_grants BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_oauth_clients_u AFTER UPDATE ON oauth_clients BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_oauth_clients_d AFTER DELETE ON oauth_clients BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_people_u AFTER UPDATE ON people BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_people_d AFTER DELETE ON people BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_tenants_u AFTER UPDATE ON tenants BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_tenants_d AFTER DELETE ON tenants BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;",
        postgres: "CREATE TABLE auth_epoch (id BIGINT PRIMARY KEY, epoch BIGINT NOT NULL);
    INSERT INTO auth_epoch (id, epoch) VALUES (1, 0);
    CREATE FUNCTION auth_epoch_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
        RETURN NULL;
    END
    $$;
    CREATE TRIGGER auth_epoch_credentials AFTER UPDATE OR DELETE ON credentials FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();
    CREATE TRIGGER auth_epoch_access_tokens_u AFTER UPDATE ON access_tokens FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();
    CREATE TRIGGER auth_epoch_access_tokens_d AFTER DELETE ON access_tokens FOR EACH ROW WHEN (OLD.expires_at > extract(epoch from now())) EXECUTE FUNCTION auth_epoch_bump();
    CREATE TRIGGER auth_epoch_grant_tokens_u AFTER UPDATE ON grant_tokens FOR EACH ROW WHEN (NEW.kind = 'access') EXECUTE FUNCTION auth_epoch_bump();
    CREATE TRIGGER auth_epoch_grant_tokens_d AFTER DELETE ON grant_tokens FOR EACH ROW WHEN (OLD.expires_at > extract(epoch from now())) EXECUTE FUNCTION auth_epoch_bump();
    CREATE TRIGGER auth_epoch_oauth_grants AFTER UPDATE OR DELETE ON oauth_grants FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();
    CREATE TRIGGER auth_epoch_oauth_clients AFTER UPDATE OR DELETE ON oauth_clients FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();
    CREATE TRIGGER auth_epoch_people AFTER UPDATE OR DELETE ON people FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();
    CREATE TRIGGER auth_epoch_tenants AFTER UPDATE OR DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();",
    },

    // 17: the session epoch (row 2 of auth_epoch): it moves whenever an MCP session ends
    // (closed, evicted, expired), so instances that remember live sessions know to forget.
    Each {
        sqlite: "INSERT INTO auth_epoch (id, epoch) VALUES (2, 0);
    CREATE TRIGGER session_epoch_mcp_sessions_d AFTER DELETE ON mcp_sessions BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 2; END;",
        postgres: "INSERT INTO auth_epoch (id, epoch) VALUES (2, 0);
    CREATE FUNCTION session_epoch_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 2;
        RETURN NULL;
    END
    $$;
    CREATE TRIGGER session_epoch_mcp_sessions AFTER DELETE ON mcp_sessions FOR EACH ROW EXECUTE FUNCTION session_epoch_bump();",
    },

    // 18: tenant write policies (one JSON document per tenant).
    Both("CREATE TABLE tenant_policies (
        tenant_id TEXT PRIMARY KEY,
        doc TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        updated_by TEXT NOT NULL
    );"),

    // 19: approvals of advertising write plans (a person's decision, bound to the plan hash).
    Both("CREATE TABLE ads_approvals (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        plan_id TEXT NOT NULL,
        plan_hash TEXT NOT NULL,
        operation TEXT NOT NULL,
        credential_id TEXT NOT NULL,
        actor TEXT NOT NULL,
        surface TEXT NOT NULL,
        idempotency_key TEXT,
        reason TEXT NOT NULL,
        status TEXT NOT NULL,
        decided_by TEXT,
        decided_ms INTEGER,
        note TEXT,
        audit_id TEXT,
        created_ms INTEGER NOT NULL,
        expires_ms INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX ads_approvals_plan ON ads_approvals (tenant_id, plan_id);
    CREATE INDEX ads_approvals_waiting ON ads_approvals (tenant_id, status, created_ms);"),

    // 20: the person who approved a held commit, on its audit row.
    Both("ALTER TABLE ads_audit ADD COLUMN approved_by TEXT;"),

    // 21: connecting accounts through the provider's consent pages: who connected (or
    // disconnected) each connection, what its grant reaches, its last successful call, and the
    // one-time `state` of each connect a person started.
    Both("ALTER TABLE marketplace_connections ADD COLUMN connected_by TEXT;
    ALTER TABLE marketplace_connections ADD COLUMN reach TEXT NOT NULL DEFAULT '';
    ALTER TABLE marketplace_connections ADD COLUMN last_call_at TEXT;
    ALTER TABLE marketplace_connections ADD COLUMN disconnected_by TEXT;
    CREATE TABLE connect_states (
        state_hash BLOB PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        person_id TEXT NOT NULL REFERENCES people(id),
        kind TEXT NOT NULL,
        region TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
    ) WITHOUT ROWID;"),

    // 22: a connection's grant changing (connected, reconnected, disconnected, lapsed) moves
    // the auth epoch, so every instance's memory of connections forgets it; a recorded call
    // (`last_call_at`) moves nothing.
    Each {
        sqlite: "CREATE TRIGGER auth_epoch_connections_u AFTER UPDATE OF status, sealed_token, region ON marketplace_connections BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;
    CREATE TRIGGER auth_epoch_connections_d AFTER DELETE ON marketplace_connections BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;",
        postgres: "CREATE TRIGGER auth_epoch_connections AFTER UPDATE OF status, sealed_token, region OR DELETE ON marketplace_connections FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();",
    },

    // 23: who previewed a committed plan, on its audit row beside who committed it.
    Both("ALTER TABLE ads_audit ADD COLUMN previewed_by TEXT;
    ALTER TABLE ads_audit ADD COLUMN previewed_credential_id TEXT;"),

    // 24: warehouse sync: the tenants whose warehouse the gateway fills (and the locator its
    // loader writes through), and one row per (tenant, merchant, dataset) with its job.
    Both("CREATE TABLE sync_warehouses (
        tenant_id TEXT PRIMARY KEY REFERENCES tenants(id),
        loader TEXT NOT NULL,
        created_ms INTEGER NOT NULL
    );
    CREATE TABLE sync_datasets (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        seller_id INTEGER NOT NULL,
        dataset TEXT NOT NULL,
        merchant TEXT NOT NULL,
        state TEXT NOT NULL,
        job_id TEXT NOT NULL,
        covered_from TEXT,
        data_through TEXT,
        last_success_ms INTEGER,
        last_rows INTEGER,
        next_run_ms INTEGER,
        last_error TEXT,
        note TEXT,
        updated_ms INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, seller_id, dataset)
    );"),

    // 25: a managed tenant's own sync schedule and restatement windows (JSON; NULL keeps the
    // service's settings).
    Both("ALTER TABLE sync_warehouses ADD COLUMN settings TEXT;"),

    // 26: outbound events (one row each, read by the feed in `seq` order), webhook endpoints
    // (the signing secret sealed, the previous one kept for its grace period), one delivery per
    // event and endpoint (a replay is another, naming the one it repeats) and its attempts.
    Both("CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        type TEXT NOT NULL,
        scope TEXT NOT NULL,
        at_ms INTEGER NOT NULL,
        subject TEXT NOT NULL,
        data TEXT NOT NULL,
        once_key TEXT
    );
    CREATE INDEX events_tenant ON events (tenant_id, seq);
    CREATE UNIQUE INDEX events_once ON events (tenant_id, once_key);
    CREATE TABLE webhook_endpoints (
        id TEXT BYTEWISE PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        url TEXT NOT NULL,
        description TEXT NOT NULL,
        types TEXT NOT NULL,
        secret BLOB NOT NULL,
        previous_secret BLOB,
        previous_until_ms INTEGER,
        enabled INTEGER NOT NULL,
        disabled_reason TEXT,
        failing_since_ms INTEGER,
        created_by TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
    );
    CREATE INDEX webhook_endpoints_tenant ON webhook_endpoints (tenant_id);
    CREATE TABLE webhook_deliveries (
        id TEXT BYTEWISE PRIMARY KEY,
        tenant_id TEXT NOT NULL,
        endpoint_id TEXT NOT NULL,
        event_id TEXT NOT NULL,
        job_id TEXT NOT NULL,
        replay_of TEXT,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        last_status INTEGER,
        last_error TEXT,
        last_attempt_ms INTEGER,
        delivered_ms INTEGER,
        created_ms INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (event_id, endpoint_id) WHERE replay_of IS NULL;
    CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_ms);
    CREATE TABLE webhook_attempts (
        delivery_id TEXT NOT NULL,
        n INTEGER NOT NULL,
        at_ms INTEGER NOT NULL,
        status INTEGER,
        error TEXT,
        duration_ms INTEGER NOT NULL,
        PRIMARY KEY (delivery_id, n)
    );"),

    // 27: monitors: a tenant's own settings (JSON over the documented defaults) and one row per
    // episode (a monitor firing for one subject from its first day until it ends).
    Both("CREATE TABLE monitor_settings (
        tenant_id TEXT BYTEWISE PRIMARY KEY REFERENCES tenants(id),
        settings TEXT NOT NULL,
        updated_by TEXT NOT NULL,
        updated_ms INTEGER NOT NULL
    );
    CREATE TABLE monitor_episodes (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        monitor TEXT NOT NULL,
        subject TEXT NOT NULL,
        started_on TEXT NOT NULL,
        ended_on TEXT,
        last_seen_on TEXT NOT NULL,
        evidence TEXT NOT NULL,
        PRIMARY KEY (tenant_id, monitor, subject, started_on)
    );
    CREATE INDEX monitor_episodes_open ON monitor_episodes (tenant_id, monitor, ended_on);"),

    // 28: who registered a webhook endpoint (the credential or grant, so ending its access
    // disables the endpoint); the network a self-registered client came from, and until when
    // a person's authorization of it is pending (a registration flood evicts its own first).
    Both("ALTER TABLE webhook_endpoints ADD COLUMN credential_id TEXT;
    CREATE INDEX webhook_endpoints_credential ON webhook_endpoints (credential_id);
    ALTER TABLE oauth_clients ADD COLUMN network TEXT;
    ALTER TABLE oauth_clients ADD COLUMN pending_until INTEGER;"),

    // 29: a connection added moves the auth epoch too, so every instance sees a merchant
    // connected on another (a second gateway, or the command line) at its next read.
    Each {
        sqlite: "CREATE TRIGGER auth_epoch_connections_i AFTER INSERT ON marketplace_connections BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END;",
        postgres: "CREATE TRIGGER auth_epoch_connections_i AFTER INSERT ON marketplace_connections FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();",
    },

    // 30: the days a dataset's last finished run read (its restated days and the new ones),
    // so its status shows what was read again, and the oldest day the provider was still
    // restating at that run, which the next run reads again however late it comes.
    Both("ALTER TABLE sync_datasets ADD COLUMN last_run_from TEXT;
    ALTER TABLE sync_datasets ADD COLUMN last_run_to TEXT;
    ALTER TABLE sync_datasets ADD COLUMN restating_from TEXT;"),

    // 31: when a dataset first loaded rows and the oldest day the provider lets it read (as
    // of its last run), so its status can tell how far its backfill has come, its pace and
    // when it should end.
    Both("ALTER TABLE sync_datasets ADD COLUMN first_load_ms INTEGER;
    ALTER TABLE sync_datasets ADD COLUMN reach_from TEXT;"),

    // 32: a job's lane (issue 67): 0 when someone waits for it (a webhook delivery, a run a
    // person started), 1 for the background (a warehouse sync's steps), so a claim takes the
    // first before the second's long queue. Sync steps queued before this step are background.
    // A claim reads the ready jobs in this index's order (waited-for first, then the oldest).
    Both("ALTER TABLE jobs ADD COLUMN lane INTEGER NOT NULL DEFAULT 0;
    UPDATE jobs SET lane = 1 WHERE kind = 'warehouse_sync';
    CREATE INDEX jobs_claim ON jobs (status, lane, run_after);"),

    // 33: profit's tenant data (issue 68): dated landed-cost periods per merchant, marketplace
    // and SKU (a period runs until the next one's start), euro reference rates per day and
    // currency (rate × 10^6), the tenant's reporting currency, and the audit log of every
    // change to them (who, when, before and after, why).
    Both("CREATE TABLE cost_periods (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        seller_id TEXT BYTEWISE NOT NULL,
        marketplace_id TEXT BYTEWISE NOT NULL,
        sku TEXT BYTEWISE NOT NULL,
        valid_from TEXT BYTEWISE NOT NULL,
        currency TEXT NOT NULL,
        unit_cents INTEGER NOT NULL,
        freight_cents INTEGER NOT NULL,
        duties_cents INTEGER NOT NULL,
        updated_by TEXT NOT NULL,
        updated_ms INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, seller_id, marketplace_id, sku, valid_from)
    ) WITHOUT ROWID;
    CREATE TABLE exchange_rates (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        day TEXT BYTEWISE NOT NULL,
        currency TEXT BYTEWISE NOT NULL,
        per_eur_e6 INTEGER NOT NULL,
        source TEXT NOT NULL,
        updated_by TEXT NOT NULL,
        updated_ms INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, currency, day)
    ) WITHOUT ROWID;
    CREATE TABLE profit_settings (
        tenant_id TEXT BYTEWISE PRIMARY KEY REFERENCES tenants(id),
        reporting_currency TEXT NOT NULL,
        updated_by TEXT NOT NULL,
        updated_ms INTEGER NOT NULL
    );
    CREATE TABLE profit_changes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        at_ms INTEGER NOT NULL,
        actor TEXT NOT NULL,
        what TEXT NOT NULL,
        subject TEXT NOT NULL,
        before TEXT,
        after TEXT,
        reason TEXT
    );
    CREATE INDEX profit_changes_tenant ON profit_changes (tenant_id, id);"),

    // 34: Amazon Marketing Stream (issue 69): the subscriptions the gateway made (profile ×
    // dataset), each queue's consumer progress, the records by idempotency id (a duplicate is
    // kept once), the days whose hourly warehouse rows must be made again (a version, so a
    // later commit is not lost to an earlier making, and a claim, so two instances never make
    // one day at once), and the messages that could not be read.
    Both("CREATE TABLE stream_subscriptions (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        profile_id TEXT BYTEWISE NOT NULL,
        dataset TEXT BYTEWISE NOT NULL,
        seller_id INTEGER NOT NULL,
        subscription_id TEXT NOT NULL,
        queue_url TEXT NOT NULL,
        status TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, profile_id, dataset)
    ) WITHOUT ROWID;
    CREATE TABLE stream_queues (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        dataset TEXT BYTEWISE NOT NULL,
        queue_url TEXT NOT NULL,
        messages INTEGER NOT NULL DEFAULT 0,
        duplicates INTEGER NOT NULL DEFAULT 0,
        rejected INTEGER NOT NULL DEFAULT 0,
        confirmations INTEGER NOT NULL DEFAULT 0,
        last_message_ms INTEGER,
        last_published_ms INTEGER,
        last_error TEXT,
        PRIMARY KEY (tenant_id, dataset)
    ) WITHOUT ROWID;
    CREATE TABLE stream_records (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        dataset TEXT BYTEWISE NOT NULL,
        idempotency_id TEXT BYTEWISE NOT NULL,
        seller_id INTEGER NOT NULL,
        day TEXT BYTEWISE NOT NULL,
        record TEXT NOT NULL,
        published_ms INTEGER NOT NULL,
        received_ms INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, dataset, idempotency_id)
    ) WITHOUT ROWID;
    CREATE INDEX stream_records_day ON stream_records (tenant_id, seller_id, dataset, day);
    CREATE TABLE stream_pending (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        seller_id INTEGER NOT NULL,
        dataset TEXT BYTEWISE NOT NULL,
        day TEXT BYTEWISE NOT NULL,
        version INTEGER NOT NULL,
        claimed_until INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant_id, seller_id, dataset, day)
    ) WITHOUT ROWID;
    CREATE TABLE stream_rejects (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        dataset TEXT NOT NULL,
        at_ms INTEGER NOT NULL,
        error TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX stream_rejects_tenant ON stream_rejects (tenant_id, id);"),

    // 35: selling-side notifications (issue 69): each report the provider said has finished
    // (REPORT_PROCESSING_FINISHED), so the sync fetches it without asking for its status.
    Both("CREATE TABLE report_notices (
        tenant_id TEXT NOT NULL REFERENCES tenants(id),
        report_id TEXT BYTEWISE NOT NULL,
        report_type TEXT NOT NULL,
        status TEXT NOT NULL,
        document_id TEXT,
        at_ms INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, report_id)
    ) WITHOUT ROWID;"),
];
