"""Writes the operation catalogs (`spapi.json`, `ads.json`) beside this file.

The selling-side entries take their method, path and parameters from the provider's official
models (`../shared/provider-models/spapi`, not copied here); everything else — ids, which
operations are in the catalog, kinds, scopes, paging, pacing and the notes — is ours and lives
in this script. The advertising catalog is written from the tables below. Run it again when an
entry changes:

    python3 crates/marketplace/catalog/generate.py ../shared/provider-models/spapi
"""

import json
import os
import re
import sys

MODELS = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))


def snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


# (area, model file, operationIds in the catalog, extra)
SPAPI = [
    ("orders", "ordersV0.json", ["getOrders", "getOrder", "getOrderItems"]),
    ("fba_inventory", "fbaInventory.json", ["getInventorySummaries"]),
    ("inbound", "fulfillmentInboundV0.json", ["getShipments", "getShipmentItemsByShipmentId", "getShipmentItems", "getPrepInstructions", "getLabels", "getBillOfLading"]),
    ("inbound_2024", "fulfillmentInbound_2024-03-20.json", None),  # every GET
    ("catalog", "catalogItems_2022-04-01.json", ["searchCatalogItems", "getCatalogItem"]),
    ("fees", "productFeesV0.json", ["getMyFeesEstimateForSKU", "getMyFeesEstimateForASIN", "getMyFeesEstimates"]),
    ("finances", "financesV0.json", ["listFinancialEventGroups", "listFinancialEventsByGroupId", "listFinancialEventsByOrderId", "listFinancialEvents"]),
    ("finances_2024", "finances_2024-06-19.json", ["listTransactions"]),
    ("product_types", "definitionsProductTypes_2020-09-01.json", ["searchDefinitionsProductTypes", "getDefinitionsProductType"]),
    ("promotions", "promotions_2025-12-01.json", ["searchPromotions", "getPromotion", "getSelection"]),
    ("data_kiosk", "dataKiosk_2023-11-15.json", ["createQuery", "getQueries", "getQuery", "cancelQuery", "getDocument"]),
    ("listings", "listingsItems_2021-08-01.json", ["getListingsItem", "searchListingsItems", "patchListingsItem"]),
    ("pricing", "productPricing_2022-05-01.json", ["getFeaturedOfferExpectedPriceBatch", "getCompetitiveSummary"]),
    ("pricing_v0", "productPricingV0.json", ["getPricing", "getCompetitivePricing", "getListingOffers", "getItemOffers"]),
    ("reports", "reports_2021-06-30.json", ["createReport", "getReports", "getReport", "cancelReport", "getReportDocument", "getReportSchedules", "getReportSchedule"]),
    ("sellers", "sellers.json", ["getMarketplaceParticipations", "getAccount"]),
]

# POSTs that only read (fees, pricing batches)
READ_POSTS = {"getMyFeesEstimateForSKU", "getMyFeesEstimateForASIN", "getMyFeesEstimates", "getFeaturedOfferExpectedPriceBatch", "getCompetitiveSummary"}
# operations that create something at the provider: never retried automatically
CREATES = {"createReport", "createQuery"}
# operations that cancel the caller's own report or query: read-scoped, never retried
CANCELS = {"cancelReport", "cancelQuery"}

PAGING = {
    "getOrders": ("NextToken", "payload.NextToken"),
    "getOrderItems": ("NextToken", "payload.NextToken"),
    "getInventorySummaries": ("nextToken", "pagination.nextToken"),
    "getShipments": ("NextToken", "payload.NextToken"),
    "getShipmentItems": ("NextToken", "payload.NextToken"),
    "getShipmentItemsByShipmentId": (None, "payload.NextToken"),
    "searchCatalogItems": ("pageToken", "pagination.nextToken"),
    "listFinancialEventGroups": ("NextToken", "payload.NextToken"),
    "listFinancialEventsByGroupId": ("NextToken", "payload.NextToken"),
    "listFinancialEventsByOrderId": ("NextToken", "payload.NextToken"),
    "listFinancialEvents": ("NextToken", "payload.NextToken"),
    "listTransactions": ("nextToken", "payload.nextToken"),
    "searchPromotions": ("paginationToken", "pagination.nextToken"),
    "getSelection": ("paginationToken", "selection.selectionDetails.pagination.nextToken"),
    "getQueries": ("paginationToken", "pagination.nextToken"),
    "searchListingsItems": ("pageToken", "pagination.nextToken"),
    "getReports": ("nextToken", "nextToken"),
}

NOTES = {
    "inbound.get_shipments": "QueryType is required (SHIPMENT, DATE_RANGE or NEXT_TOKEN). A SHIPMENT or DATE_RANGE search also needs ShipmentStatusList or ShipmentIdList. Page with NextToken and QueryType=NEXT_TOKEN.",
    "inbound.get_shipment_items": "QueryType is required (DATE_RANGE or NEXT_TOKEN). Continue the short list inbound.get_shipment_items_by_shipment_id returns by passing its NextToken here with QueryType=NEXT_TOKEN.",
    "inbound.get_shipment_items_by_shipment_id": "Keyed by shipmentId; takes no query type and no token. It can return a short item list beside a NextToken: keep reading with inbound.get_shipment_items (QueryType=NEXT_TOKEN) until none is returned.",
    "promotions.search_promotions": "The marketplace is injected from the merchant; exactly one. Dates are ISO 8601 with a time zone offset. Pass pagination.nextToken back as paginationToken with the other arguments unchanged and keep paging until pagination is absent: empty pages occur mid-stream and totalResults can exceed the summed pages. limit 1 to 100 (default 20); asins and skus up to 10 each. Matches live revisions unless revision is LATEST or ANY. Vendors get restricted_report.",
    "promotions.get_promotion": "Full detail of one promotionId; its selection object carries the selectionId and revisionId that promotions.get_selection needs.",
    "promotions.get_selection": "revisionId is required (a promotion mid-edit has several revisions): take it from the promotion's selection. Items page with paginationToken.",
    "reports.create_report": "Never retried automatically: at most one create reaches the provider per call. When the outcome is uncertain the error says requestOutcome unknown.",
    "reports.get_reports": "nextToken must travel alone: send it as the only parameter.",
    "data_kiosk.create_query": "Never retried automatically. The next page of a result is fetched by creating a new query with its paginationToken.",
    "listings.patch_listings_item": "The guarded listing write: edits of existing SKUs only, through the audited preview-then-commit flow (listings:write).",
    "pricing.get_featured_offer_expected_price_batch": "At most 40 SKUs per provider batch; the plan allows one batch about every 30 seconds.",
    "pricing.get_competitive_summary": "At most 20 ASINs per provider batch; batches are paced about 35 seconds apart.",
    "orders.get_orders": "CreatedAfter or LastUpdatedAfter is required (not both). The usage plan is slow (one call a minute after a burst of 20): page with NextToken rather than re-querying.",
}


# Checks the gateway runs before anything is sent (each failure is invalid_request):
# "formats" (a parameter's value shape), "maxValues" (list parameters' item caps), "ranges"
# (numeric bounds), "oneOf" (at least one of these parameters unless a paging value is given)
# "bodyArrays" (bounds on an array field of the body), "bodyRequired" (body fields that must be
# present) and "distinct" (a body array whose entries must name distinct ids, by these fields).
OFFSET_DATES = ["startDateBefore", "startDateAfter", "endDateBefore", "endDateAfter", "updateDateAfter", "updateDateBefore"]
CHECKS = {
    "promotions.search_promotions": {
        "formats": {k: "date-time-offset" for k in OFFSET_DATES},
        "maxValues": {"asins": 10, "skus": 10},
        "ranges": {"limit": [1, 100]},
    },
    "promotions.get_selection": {"ranges": {"limit": [1, 100]}},
    "inbound.get_shipments": {"oneOf": {"params": ["ShipmentStatusList", "ShipmentIdList"], "unless": {"QueryType": "NEXT_TOKEN"}}},
}


def usage_plan(op):
    m = re.search(r"\|\s*([0-9.]+)\s*\|\s*([0-9.]+)\s*\|", op.get("description", ""))
    return (float(m.group(1)), float(m.group(2))) if m else (None, None)


def param_type(p):
    if p.get("in") == "body":
        return "object"
    return p.get("type", "string")


spapi = []
for area, model_file, wanted in SPAPI:
    model = json.load(open(os.path.join(MODELS, model_file)))
    for path, ops in model["paths"].items():
        for method, op in ops.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            oid = op["operationId"]
            if wanted is None:
                if method != "get":
                    continue
            elif oid not in wanted:
                continue
            params = []
            for p in op.get("parameters", []):
                if "$ref" in p:
                    p = model["parameters"][p["$ref"].split("/")[-1]]
                params.append({"name": p["name"], "in": p["in"], "required": bool(p.get("required", False)), "type": param_type(p)})
            kind = "read"
            if method != "get" and oid not in READ_POSTS:
                kind = "create" if oid in CREATES else "cancel" if oid in CANCELS else "write"
            rate, burst = usage_plan(op)
            entry_id = f"{area}.{snake(oid)}"
            paging = PAGING.get(oid)
            marketplace_param = next((p["name"] for p in params if p["name"] in ("marketplaceIds", "MarketplaceIds", "MarketplaceId", "marketplaceId")), None)
            spapi.append({
                "id": entry_id,
                "api": "spapi",
                "method": method.upper(),
                "path": path,
                "model": model_file,
                "operationId": oid,
                "scope": "listings:write" if kind == "write" and area == "listings" else "retail:read",
                "kind": kind,
                "rate": rate,
                "burst": burst,
                "params": params,
                "paging": {"request": paging[0], "response": paging[1]} if paging else None,
                "marketplaceParam": marketplace_param,
                "notes": NOTES.get(entry_id, ""),
            })
            if entry_id in CHECKS:
                spapi[-1]["checks"] = CHECKS[entry_id]

for e in spapi:
    if e["rate"] is None:  # promotions: no plan in the model
        e["rate"], e["burst"] = 1.0, 10.0

# Advertising: (id, method, path, media type, kind, scope, paging, params, requiredItemFields, notes)
SP_MEDIA = {"campaigns": "spCampaign", "adGroups": "spAdGroup", "keywords": "spKeyword", "targets": "spTargetingClause", "productAds": "spProductAd", "negativeKeywords": "spNegativeKeyword", "campaignNegativeKeywords": "spCampaignNegativeKeyword", "negativeTargets": "spNegativeTargetingClause"}
SP_REQUIRED = {
    "campaigns": ["name", "targetingType", "state", "budget"],
    "adGroups": ["campaignId", "name", "state", "defaultBid"],
    "keywords": ["campaignId", "adGroupId", "keywordText", "matchType", "state"],
    "targets": ["campaignId", "adGroupId", "expression", "expressionType", "state"],
    "productAds": ["campaignId", "adGroupId", "state"],
    "negativeKeywords": ["campaignId", "adGroupId", "keywordText", "matchType", "state"],
    "campaignNegativeKeywords": ["campaignId", "keywordText", "matchType", "state"],
    "negativeTargets": ["campaignId", "adGroupId", "expression", "state"],
}
# the request and answer key of each entity's items, where it is not the path's name
SP_ITEMS = {"targets": "targetingClauses", "negativeTargets": "negativeTargetingClauses"}
SP_ID = {"campaigns": "campaignId", "adGroups": "adGroupId", "keywords": "keywordId", "targets": "targetId", "productAds": "adId", "negativeKeywords": "keywordId", "campaignNegativeKeywords": "keywordId", "negativeTargets": "targetId"}

ads = []


def write_spec(action, items, entity, answer, current=None, forbidden=None, modifier=None, only=None, require_state=None, audience_query=False):
    """How the audited write flow handles an operation: `action` (create, update, delete);
    how the request carries its items (`key`: an array under itemsKey; `array`: the body is
    the array; `idFilter`: ids under <entity>Filter.include; `single`: the body is one item; `ids`: an array of bare ids under itemsKey);
    the entity id field; how the provider answers per item (`bulk`: {itemsKey: {success,
    error}} by index; `positional`: an array in request order; `indexed`: *SuccessResults and
    *ErrorResults by targetRequestIndex; `responses`: {responses: [{code, …}]} in request
    order; `whole`: one answer for the one item); the read that
    gives the entities' current values (`by`: `ids` = <entity>Filter.include in the body,
    `adGroupQuery` = adGroupIdFilter in the query, `adGroupFilter` = an AD_GROUP_ID filter,
    `path` = one read per entity by its path id); the item fields a type refuses (docs/writes.md); for
    bid adjustments the modifier family and the only fields an item may carry; the state an
    entity must be in to change (`require_state`); and whether the item's query is clean-room
    audience SQL (`audience_query`: the clean-room audience checks of docs/writes.md)."""
    w = {"action": action, "items": items, "entityId": entity, "answer": answer}
    if current:
        w["current"] = current
    if forbidden:
        w["forbiddenItemFields"] = forbidden
    if modifier:
        w["modifier"] = modifier
    if only:
        w["onlyItemFields"] = only
    if require_state:
        w["requireState"] = require_state
    if audience_query:
        w["audienceQuery"] = True
    return w

# Sponsored Brands v4 writes take at most 10 items (the provider's documents' maxItems)
SB_MAX_ITEMS = 10


def ad(id_, method, path, media, kind, scope="ads:read", paging=None, params=None, required=None, notes="", profile=True, item_key=None, checks=None, answer=None, media_by_id=None, max_items=200, write=None, pace=None):
    # "create" is a read-scoped operation that makes a report, query or execution; anything
    # that changes the account (entity creates included) is a "write" for the audited flow
    if kind == "create" and scope == "ads:write":
        kind = "write"
    e = {"id": id_, "api": "ads", "method": method, "path": path, "mediaType": media, "kind": kind, "scope": scope,
         "profileScoped": profile, "params": params or [], "paging": paging, "notes": notes}
    if kind == "write":
        e["requiredItemFields"] = required or []
        # the spec's cap on every ads write, or the provider's own lower one (SB v4: 10)
        e["maxItems"] = max_items
        e["itemsKey"] = item_key
        # how the audited flow reads the items, the answer and the entities' current values
        e["write"] = write
    if checks:
        e["checks"] = checks
    # how the provider answers beyond plain statuses: "multi_status" (HTTP 207 with error and
    # success arrays), "multi_status_capped" (also: its 429 is a concurrency cap)
    if answer:
        e["answer"] = answer
    # the media type follows the kind a path id encodes (base64url of "<uuid>,<letter>")
    if media_by_id:
        e["mediaTypeById"] = media_by_id
    # the Ads API publishes no usage plans (it throttles per login, answering 429); a sync
    # makes these calls in bursts, so they are paced at the plan the sandbox enforces
    if pace:
        e["rate"], e["burst"] = pace
    ads.append(e)


BODY = [{"name": "body", "in": "body", "required": False, "type": "object"}]
for name, media in SP_MEDIA.items():
    m = f"application/vnd.{media}.v3+json"
    singular = snake(name)
    ad(f"sp.list_{singular}", "POST", f"/sp/{name}/list", m, "read", paging={"request": "body.nextToken", "response": "nextToken"}, params=BODY,
       notes="Filters go in the body (<x>IdFilter, stateFilter); page with maxResults and nextToken in the body.")
    items = SP_ITEMS.get(name, name)
    current = {"operation": f"sp.list_{singular}", "by": "ids", "key": items}
    ad(f"sp.create_{singular}", "POST", f"/sp/{name}", m, "create", "ads:write", required=SP_REQUIRED[name], params=BODY, item_key=items,
       notes="Answers 207: each item in success or error by index. state defaults to PAUSED.",
       write=write_spec("create", "key", SP_ID[name], "bulk"))
    ad(f"sp.update_{singular}", "PUT", f"/sp/{name}", m, "write", "ads:write", required=[SP_ID[name]], params=BODY, item_key=items,
       notes="Answers 207 per item." + (" dynamicBidding is replaced whole: resend unchanged placement entries, or use sp.update_campaign_bid_adjustments with merge." if name == "campaigns" else ""),
       write=write_spec("update", "key", SP_ID[name], "bulk", current))
    ad(f"sp.delete_{singular}", "POST", f"/sp/{name}/delete", m, "write", "ads:write", required=[SP_ID[name]], params=BODY, item_key=items,
       notes=f"Archives. The body is {{\"{SP_ID[name]}Filter\": {{\"include\": [ids]}}}}; answers 207 per id.",
       write=write_spec("delete", "idFilter", SP_ID[name], "bulk", current))
ad("sp.update_campaign_bid_adjustments", "PUT", "/sp/campaigns", "application/vnd.spCampaign.v3+json", "write", "ads:write", required=["campaignId", "dynamicBidding"], params=BODY, item_key="campaigns",
   write=write_spec("update", "key", "campaignId", "bulk", {"operation": "sp.list_campaigns", "by": "ids", "key": "campaigns"}, modifier="sp", only=["campaignId", "dynamicBidding"]),
   notes="dynamicBidding.placementBidding (PLACEMENT_TOP, PLACEMENT_PRODUCT_PAGE, PLACEMENT_REST_OF_SEARCH, SITE_AMAZON_BUSINESS) and shopperCohortBidding replace the object sent; omitted entries lose their value. percentage is a whole-number increase; 0 means none.")
ad("sp.campaigns_budget_usage", "POST", "/sp/campaigns/budget/usage", "application/vnd.spcampaignbudgetusage.v1+json", "read", params=BODY, notes="campaignIds (1 to 100); answers 207 with success and error lists.")
ad("sp.keyword_recommendations", "POST", "/sp/targets/keywords/recommendations", "application/vnd.spkeywordsrecommendation.v5+json", "read", params=BODY, notes="recommendationType KEYWORDS_FOR_ADGROUP with campaignId and adGroupId; v3, v4 and v5 media types are accepted.")
RULES_V2 = "application/vnd.spoptimizationrules.v2+json"
ad("sp.search_optimization_rules", "POST", "/sp/rules/optimization/search", RULES_V2, "read", params=BODY, paging={"request": "body.nextToken", "response": "nextToken"},
   notes="Filters in the body: optimizationRuleFilter (optimizationRuleId, ruleName, ruleCategory, ruleSubCategory, ruleStatus; each {filterType EXACT_MATCH or BROAD_MATCH, values}) and campaignFilter.campaignId (the rules associated with those campaigns); maxResults 1 to 300.")
ad("sp.create_optimization_rules", "POST", "/sp/rules/optimization", RULES_V2, "create", "ads:write", params=BODY, item_key="optimizationRules",
   required=["ruleName", "ruleCategory", "ruleSubCategory", "status", "action.actionDetails.value", "recurrence.type", "recurrence.duration.startTime"],
   write=write_spec("create", "key", "optimizationRuleId", "responses"),
   notes="Schedule bid rules (ruleCategory BID, ruleSubCategory SCHEDULE): actionDetails INCREMENT in PERCENT, a whole 1 to 100; recurrence DAILY or WEEKLY (daysOfWeek) with at most one timesOfDay range (HH:00). A rule does nothing until it is associated with a campaign (sp.associate_optimization_rules). Answers 207: responses in request order.")
ad("sp.associate_optimization_rules", "POST", "/sp/campaigns/{campaignId}/optimizationRules", "application/vnd.spoptimizationrules.v1+json", "write", "ads:write",
   params=[{"name": "campaignId", "in": "path", "required": True, "type": "string"}] + BODY, item_key="optimizationRuleIds", required=["optimizationRuleId"], max_items=25,
   write=write_spec("create", "ids", "optimizationRuleId", "responses"),
   notes="The body is {\"optimizationRuleIds\": [ids]} (1 to 25); a campaign holds at most 20 schedule rules. Answers 207: responses in request order.")
ad("sp.budget_recommendations", "POST", "/sp/campaigns/budgetRecommendations", "application/vnd.budgetrecommendation.v3+json", "read", params=BODY)
for name, media, req, idf in [("campaigns", "sbcampaignresource", ["name", "state", "budget", "budgetType"], "campaignId"), ("adGroups", "sbadgroupresource", ["campaignId", "name", "state"], "adGroupId"), ("ads", "sbadresource", [], "adId")]:
    m = f"application/vnd.{media}.v4+json"
    singular = snake(name)
    ad(f"sb.list_{singular}", "POST", f"/sb/v4/{name}/list", m, "read", paging={"request": "body.nextToken", "response": "nextToken"}, params=BODY)
    current = {"operation": f"sb.list_{singular}", "by": "ids", "key": name}
    if name != "ads":
        ad(f"sb.create_{singular}", "POST", f"/sb/v4/{name}", m, "create", "ads:write", required=req, params=BODY, item_key=name, max_items=SB_MAX_ITEMS,
           notes="Creative creation order: campaigns, then ad groups, then the ad type. state defaults to PAUSED." + (" No bid: bids live on keywords and targets." if name == "adGroups" else ""),
           write=write_spec("create", "key", idf, "bulk", forbidden=["bid", "defaultBid"] if name == "adGroups" else None))
    ad(f"sb.update_{singular}", "PUT", f"/sb/v4/{name}", m, "write", "ads:write", required=[idf], params=BODY, item_key=name, max_items=SB_MAX_ITEMS,
       write=write_spec("update", "key", idf, "bulk", current))
    ad(f"sb.delete_{singular}", "POST", f"/sb/v4/{name}/delete", m, "write", "ads:write", required=[idf], params=BODY, item_key=name, max_items=SB_MAX_ITEMS,
       notes=f"Archives. The body is {{\"{idf}Filter\": {{\"include\": [ids]}}}}.",
       write=write_spec("delete", "idFilter", idf, "bulk", current))
ad("sb.update_campaign_bid_adjustments", "PUT", "/sb/v4/campaigns", "application/vnd.sbcampaignresource.v4+json", "write", "ads:write", required=["campaignId", "bidding"], params=BODY, item_key="campaigns", max_items=SB_MAX_ITEMS,
   write=write_spec("update", "key", "campaignId", "bulk", {"operation": "sb.list_campaigns", "by": "ids", "key": "campaigns"}, modifier="sb", only=["campaignId", "bidding"]),
   notes="bidding.bidAdjustmentsByPlacement (TOP_OF_SEARCH, HOME, DETAIL_PAGE, OTHER) and shopperCohortBidAdjustments, beside bidOptimization: send the whole bidding object; omitted entries lose their value.")
BRAND_FIELDS = ["creative.brandName", "creative.brandLogoAssetID", "creative.brandLogoCrop", "creative.headline"]
for op_name, path, req, forbidden in [
    ("create_product_collection_ads", "productCollection", ["adGroupId", "name", "state", "creative.asins", "creative.brandName", "creative.brandLogoAssetID", "creative.brandLogoCrop", "creative.headline", "creative.customImages"], None),
    ("create_brand_video_ads", "brandVideo", ["adGroupId", "name", "state", "creative.asins", "creative.videoAssetIds", "creative.brandName", "creative.brandLogoAssetID", "creative.brandLogoCrop", "creative.headline"], None),
    ("create_video_ads", "video", ["adGroupId", "name", "state", "creative.asins", "creative.videoAssetIds"], BRAND_FIELDS),
    ("create_store_spotlight_ads", "storeSpotlight", ["adGroupId", "name", "state", "creative.brandName", "creative.brandLogoAssetID", "creative.brandLogoCrop", "creative.headline", "creative.subpages"], ["creative.asins"]),
]:
    ad(f"sb.{op_name}", "POST", f"/sb/v4/ads/{path}", "application/vnd.sbadresource.v4+json", "create", "ads:write", required=req, params=BODY, item_key="ads", max_items=SB_MAX_ITEMS,
       write=write_spec("create", "key", "adId", "bulk", forbidden=forbidden),
       notes="Every asset id must already be in the creative asset library. Store-landing ads: every ASIN must be on the Store page. VIDEO takes asins and videoAssetIds only (brand fields fail). Store Spotlight: no top-level asins; they ride in subpages.")
ad("sb.list_keywords", "GET", "/sb/keywords", "application/vnd.sbkeyword.v3+json", "read", params=[{"name": "startIndex", "in": "query", "required": False, "type": "integer"}, {"name": "count", "in": "query", "required": False, "type": "integer"}, {"name": "adGroupIdFilter", "in": "query", "required": False, "type": "string"}])
ad("sb.update_keywords", "PUT", "/sb/keywords", "application/json", "write", "ads:write", required=["keywordId", "adGroupId"], params=BODY, max_items=100,
   notes="Sponsored Brands keyword updates need adGroupId beside keywordId. The body is the array of items (1 to 100); the answer is an array of { code, keywordId } in request order.",
   write=write_spec("update", "array", "keywordId", "positional", {"operation": "sb.list_keywords", "by": "adGroupQuery"}))
ad("sb.list_targets", "POST", "/sb/targets/list", "application/json", "read", params=BODY, paging={"request": "body.nextToken", "response": "nextToken"})
ad("sb.update_targets", "PUT", "/sb/targets", "application/json", "write", "ads:write", required=["targetId", "adGroupId"], params=BODY, item_key="targets", max_items=100, notes="Needs adGroupId beside targetId.",
   write=write_spec("update", "key", "targetId", "indexed", {"operation": "sb.list_targets", "by": "adGroupFilter", "key": "targets"}))
ad("sb.list_negative_targets", "POST", "/sb/negativeTargets/list", "application/json", "read", params=BODY, paging={"request": "body.nextToken", "response": "nextToken"})
ad("sb.update_negative_targets", "PUT", "/sb/negativeTargets", "application/json", "write", "ads:write", required=["targetId", "adGroupId"], params=BODY, item_key="negativeTargets", max_items=100, notes="A negative target is identified by targetId, not negativeTargetId; adGroupId is needed too.",
   write=write_spec("update", "key", "targetId", "indexed", {"operation": "sb.list_negative_targets", "by": "adGroupFilter", "key": "negativeTargets"}))
ad("sb.campaigns_budget_usage", "POST", "/sb/campaigns/budget/usage", "application/vnd.sbcampaignbudgetusage.v1+json", "read", params=BODY)
def sd_query(*filters):
    return [{"name": n, "in": "query", "required": False, "type": t}
            for n, t in [("startIndex", "integer"), ("count", "integer"), ("stateFilter", "string")] + [(f, "string") for f in filters]]


ad("sd.list_campaigns", "GET", "/sd/campaigns", "application/json", "read", params=sd_query("campaignIdFilter"),
   notes="Sponsored Display campaigns (a JSON array). Page with startIndex and count (at most 5000); stateFilter and campaignIdFilter take comma-separated values.")
ad("sd.list_ad_groups", "GET", "/sd/adGroups", "application/json", "read", params=sd_query("campaignIdFilter", "adGroupIdFilter"),
   notes="Sponsored Display ad groups (a JSON array). Page with startIndex and count (at most 5000); the filters take comma-separated values.")
ad("sd.list_targets", "GET", "/sd/targets", "application/json", "read", params=sd_query("campaignIdFilter", "adGroupIdFilter"),
   notes="Sponsored Display targets (a JSON array): each an audience or product expression. Page with startIndex and count (at most 5000); the filters take comma-separated values.")
ad("reporting.create_report", "POST", "/reporting/reports", "application/vnd.createasyncreportrequest.v3+json", "create", params=BODY, pace=(1.0, 10.0),
   notes="Never retried automatically. An identical request while the first is in flight answers 425 naming the original reportId: poll that one. 31 days per request within a 95-day lookback. Placement performance: groupBy campaignPlacement only, with placementClassification requested.")
ad("reporting.get_report", "GET", "/reporting/reports/{reportId}", "application/vnd.getasyncreportresponse.v3+json", "read", params=[{"name": "reportId", "in": "path", "required": True, "type": "string"}], pace=(5.0, 20.0))
ad("reporting_v1.create_report", "POST", "/adsApi/v1/create/reports", "application/json", "create", params=BODY, profile=False, answer="multi_status_capped", pace=(5.0, 10.0),
   checks={"bodyArrays": {"accessRequestedAccounts": [1, 5], "reports": [1, 1]},
           "distinct": {"accessRequestedAccounts": ["advertiserAccountId", "managerAccountId"]}},
   notes="Not profile-scoped: up to 5 accounts in accessRequestedAccounts (advertiserAccountId or managerAccountId). For DSP pass the numeric dspAdvertiserId, not the seat id (accountId), which fails as a permissions error. One report per call; answers 207 — branch on a non-empty error array. No deduplication; a 429 is the concurrency cap. month.value and week.value carry no year. Spend is metric.totalCost; metric.sales needs budgetCurrency.value.")
ad("reporting_v1.retrieve_report", "POST", "/adsApi/v1/retrieve/reports", "application/json", "read", params=BODY, profile=False, answer="multi_status", pace=(10.0, 20.0), notes="One report id per call. completedReportParts URLs must be fetched without an Authorization header.")
ad("reporting_v1.delete_report", "POST", "/adsApi/v1/delete/reports", "application/json", "cancel", params=BODY, profile=False, answer="multi_status", notes="Deletes the caller's own report and frees a concurrency slot; never retried.")
for what, media in [("campaigns", "campaignsexport"), ("adGroups", "adgroupsexport"), ("targets", "targetsexport"), ("ads", "adsexport")]:
    ad(f"exports.{snake(what)}_export", "POST", f"/{what}/export", f"application/vnd.{media}.v1+json", "read", params=BODY, notes="Answers 202 with an exportId; poll exports.get_export.")
EXPORT_KINDS = {"C": "campaignsexport", "A": "adgroupsexport", "T": "targetsexport", "R": "adsexport"}
ad("exports.get_export", "GET", "/exports/{exportId}", "application/vnd.campaignsexport.v1+json", "read", params=[{"name": "exportId", "in": "path", "required": True, "type": "string"}],
   media_by_id={"param": "exportId", "types": {k: f"application/vnd.{m}.v1+json" for k, m in EXPORT_KINDS.items()}},
   notes="The export's kind (campaigns, ad groups, targets, ads) is read from its exportId, and the matching Accept media type is sent.")
ad("accounts.query_advertiser_accounts", "POST", "/adsApi/v1/query/advertiserAccounts", "application/json", "read", params=BODY, profile=False, paging={"request": "body.nextToken", "response": "nextToken"})
ad("accounts.list_manager_accounts", "GET", "/managerAccounts", "application/vnd.getmanageraccountsresponse.v1+json", "read", profile=False, notes="Linked DSP accounts carry a seat id (accountId) and the numeric dspAdvertiserId: use the latter.")
for what in ["campaigns", "adGroups", "adCreatives", "creativeAssociations", "associationModerations", "eligibleCreatives"]:
    ad(f"dsp.list_{snake(what)}", "GET", f"/dsp/{what}", "application/json", "read", profile=False, params=[{"name": "Amazon-Ads-AccountId", "in": "header", "required": True, "type": "string"}, {"name": "maxResults", "in": "query", "required": False, "type": "integer"}, {"name": "nextToken", "in": "query", "required": False, "type": "string"}],
       paging={"request": "nextToken", "response": "nextToken"}, notes="The advertiser is the numeric dspAdvertiserId, not the seat id.")
ad("dsp.create_report", "POST", "/accounts/{accountId}/dsp/reports", "application/vnd.dspcreatereports.v3+json", "create", profile=False, params=[{"name": "accountId", "in": "path", "required": True, "type": "string"}] + BODY)
ad("dsp.get_report", "GET", "/accounts/{accountId}/dsp/reports/{reportId}", "application/vnd.dspgetreports.v3+json", "read", profile=False, params=[{"name": "accountId", "in": "path", "required": True, "type": "string"}, {"name": "reportId", "in": "path", "required": True, "type": "string"}])
ad("assets.list_recent", "POST", "/assets/search", "application/json", "read", params=BODY,
   notes="Returns only the newest page (a few dozen assets). Any filter sent is silently ignored (HTTP 200, the same page). The token it returns cannot page. The library is per profile.")
ad("profiles.list", "GET", "/v2/profiles", "application/json", "read", profile=False)
AMC = "application/vnd.amcinstances.v1+json"
ad("amc.list_accounts", "GET", "/amc/accounts", "application/vnd.amcaudiencesconnections.v1+json", "read", profile=False, notes="An empty answer is normal.")
ad("amc.list_instances", "GET", "/amc/instances", AMC, "read", profile=False, params=[{"name": "Amazon-Advertising-API-AdvertiserId", "in": "header", "required": True, "type": "string"}, {"name": "Amazon-Advertising-API-MarketplaceId", "in": "header", "required": True, "type": "string"}], notes="One entity and marketplace pair at a time.")
ad("amc.get_instance", "GET", "/amc/instances/{instanceId}", AMC, "read", profile=False, params=[{"name": "instanceId", "in": "path", "required": True, "type": "string"}])
ad("amc.list_data_sources", "GET", "/amc/reporting/{instanceId}/dataSources", AMC, "read", profile=False, params=[{"name": "instanceId", "in": "path", "required": True, "type": "string"}, {"name": "nextToken", "in": "query", "required": False, "type": "string"}], paging={"request": "nextToken", "response": "nextToken"}, notes="Pages at 100; isPremium marks paid datasets.")
ad("amc.get_data_source", "GET", "/amc/reporting/{instanceId}/dataSources/{dataSourceId}", AMC, "read", profile=False, params=[{"name": "instanceId", "in": "path", "required": True, "type": "string"}, {"name": "dataSourceId", "in": "path", "required": True, "type": "string"}])
ad("amc.create_workflow_execution", "POST", "/amc/reporting/{instanceId}/workflowExecutions", "application/json", "create", profile=False, params=[{"name": "instanceId", "in": "path", "required": True, "type": "string"}] + BODY,
   checks={"bodyRequired": ["timeWindowType"]},
   notes="timeWindowType is required (EXPLICIT, MOST_RECENT_DAY, MOST_RECENT_WEEK); dryRun validates in seconds. Shopper-level identifiers may be counted, never returned. A paid dataset the advertiser does not hold fails with a message that does not mention subscription.")
ad("amc.get_workflow_execution", "GET", "/amc/reporting/{instanceId}/workflowExecutions/{executionId}", "application/json", "read", profile=False, params=[{"name": "instanceId", "in": "path", "required": True, "type": "string"}, {"name": "executionId", "in": "path", "required": True, "type": "string"}])
ad("amc.get_download_urls", "GET", "/amc/reporting/{instanceId}/workflowExecutions/{executionId}/downloadUrls", "application/json", "read", profile=False, params=[{"name": "instanceId", "in": "path", "required": True, "type": "string"}, {"name": "executionId", "in": "path", "required": True, "type": "string"}], notes="Short-lived CSV URLs.")
# an audience's current status comes from its own read (the path names it); only a FAILED one
# may change (docs/writes.md); audience SQL gets the clean-room audience checks (docs/writes.md) before anything is sent
AUDIENCE_NOW = {"operation": "amc.get_audience", "by": "path"}
ONLY_FAILED = {"field": "status", "values": ["FAILED"], "why": "a successful audience is immutable: only a FAILED audience may be updated or removed"}
ad("amc.list_audiences", "GET", "/amc/audiences/query", "application/json", "read", profile=False)
ad("amc.get_audience", "GET", "/amc/audiences/query/{audienceExecutionId}", "application/json", "read", profile=False, params=[{"name": "audienceExecutionId", "in": "path", "required": True, "type": "string"}])
ad("amc.create_audience", "POST", "/amc/audiences/query", "application/json", "create", "ads:write", profile=False, params=BODY, required=["instanceId", "audienceName", "query", "destination"], max_items=1,
   notes="SQL over _for_audiences tables with no date filter (the window is the lookback); refresh 0 to 21 days; no trailing semicolon.",
   write=write_spec("create", "single", "audienceExecutionId", "whole", audience_query=True))
ad("amc.update_audience", "PUT", "/amc/audiences/query/{audienceExecutionId}", "application/json", "write", "ads:write", profile=False, params=[{"name": "audienceExecutionId", "in": "path", "required": True, "type": "string"}] + BODY, required=["query"], max_items=1,
   notes="Only a FAILED audience can be updated; a successful one is immutable.", write=write_spec("update", "single", "audienceExecutionId", "whole", AUDIENCE_NOW, require_state=ONLY_FAILED, audience_query=True))
ad("amc.delete_audience", "DELETE", "/amc/audiences/query/{audienceExecutionId}", "application/json", "write", "ads:write", profile=False, params=[{"name": "audienceExecutionId", "in": "path", "required": True, "type": "string"}], max_items=1,
   notes="Only a FAILED audience can be deleted; a successful one is immutable.", write=write_spec("delete", "single", "audienceExecutionId", "whole", AUDIENCE_NOW, require_state=ONLY_FAILED))

for name, data in [("spapi.json", spapi), ("ads.json", ads)]:
    with open(os.path.join(HERE, name), "w") as f:
        json.dump({"operations": data}, f, indent=1)
        f.write("\n")
print(f"{len(spapi)} selling-side and {len(ads)} advertising operations")
