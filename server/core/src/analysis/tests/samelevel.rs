//! `fixtures/conformance/kuadrant-same-level-defaults` through every surface: two policies on one
//! target, the older dictating the strategy (GEP-713 "Conflict resolution" rule 2; Kuadrant
//! ae698811 `api/v1/merge_strategies.go`). Under defaults the younger's values win where both set
//! a field, under overrides the older's; `check`, `status`, `explain`, hover and code lens must
//! tell that one story (docs/semantics.md §5 step 4).

use std::fmt::Write as _;

use super::{assert_lines, fixture, render_check, render_explains, render_policy_hovers, render_policy_lenses};

const WORKSPACE: &str = include_str!("../../../../../fixtures/conformance/kuadrant-same-level-defaults/workspace.yaml");
const TARGETS: &str = include_str!("../../../../../fixtures/conformance/kuadrant-same-level-defaults/targets.txt");

#[test]
fn same_level_defaults_every_surface_agrees() {
    let f = fixture(&format!("//- workspace.yaml\n{WORKSPACE}"));
    let snap = &f.snap;
    let world = snap.world();
    let mut got = String::new();

    got.push_str("# check\n");
    render_check(snap, false, &mut got);

    got.push_str("# status\n");
    for p in snap.effective().report(world).policies {
        let _ = writeln!(got, "{} {:?} {:?} affects={:?}", p.policy, p.accepted.reason, p.enforcement, p.affects);
    }

    got.push_str("# explain\n");
    render_explains(snap, TARGETS.lines(), &mut got, |target, ex, got| {
        for k in &ex.policies {
            for c in &k.contexts {
                let _ = writeln!(got, "{target} via {}:", c.path.join(" > "));
                for p in &c.provenance {
                    let _ = writeln!(got, "  {} = {}", p.field, p.policy);
                }
                for l in &c.lost {
                    let _ = writeln!(got, "  lost {} {} by {:?} because {:?}", l.policy, l.outcome, l.by, l.because);
                }
            }
        }
    });

    got.push_str("# hover\n");
    render_policy_hovers(
        snap,
        "workspace.yaml",
        |p| p.starts_with("Accepted") || p.starts_with("**Accepted") || p.contains("by `"),
        &mut got,
    );

    got.push_str("# lens\n");
    render_policy_lenses(snap, "workspace.yaml", &mut got);
    assert_lines(&got, EXPECTED);
}

const EXPECTED: &str = r#"
# check
"merge-older" information[partially-overridden] `RateLimitPolicy.kuadrant.io/infra/merge-older` is superseded in part by `RateLimitPolicy.kuadrant.io/infra/merge-younger`: on `HTTPRoute/infra/shop`, `limits.per-user`; it is still in effect on the one effective target it reaches
"atomic-older" warning[overridden] nothing `RateLimitPolicy.kuadrant.io/infra/atomic-older` sets is in effect: everything is superseded by `RateLimitPolicy.kuadrant.io/infra/atomic-younger`
"overrides-younger" warning[overridden] nothing `RateLimitPolicy.kuadrant.io/infra/overrides-younger` sets is in effect: everything is superseded by `RateLimitPolicy.kuadrant.io/infra/overrides-older`
# status
RateLimitPolicy.kuadrant.io/infra/atomic-older Accepted Some(Overridden) affects=[]
RateLimitPolicy.kuadrant.io/infra/atomic-younger Accepted Some(Enforced) affects=["HTTPRoute/infra/shop"]
RateLimitPolicy.kuadrant.io/infra/merge-older Accepted Some(PartiallyEnforced) affects=["HTTPRoute/infra/shop"]
RateLimitPolicy.kuadrant.io/infra/merge-younger Accepted Some(Enforced) affects=["HTTPRoute/infra/shop"]
RateLimitPolicy.kuadrant.io/infra/overrides-older Accepted Some(Enforced) affects=["HTTPRoute/infra/shop"]
RateLimitPolicy.kuadrant.io/infra/overrides-younger Accepted Some(Overridden) affects=[]
# explain
HTTPRoute/infra/shop via Gateway/infra/edge-merge > Gateway/infra/edge-merge#http > HTTPRoute/infra/shop:
  /limits/global = RateLimitPolicy.kuadrant.io/infra/merge-older
  /limits/per-user = RateLimitPolicy.kuadrant.io/infra/merge-younger
  /limits/burst = RateLimitPolicy.kuadrant.io/infra/merge-younger
  lost RateLimitPolicy.kuadrant.io/infra/merge-older PartiallyOverridden by ["RateLimitPolicy.kuadrant.io/infra/merge-younger"] because ["younger-wins"]
HTTPRoute/infra/shop via Gateway/infra/edge-atomic > Gateway/infra/edge-atomic#http > HTTPRoute/infra/shop:
  /limits/global = RateLimitPolicy.kuadrant.io/infra/atomic-younger
  lost RateLimitPolicy.kuadrant.io/infra/atomic-older Overridden by ["RateLimitPolicy.kuadrant.io/infra/atomic-younger"] because ["younger-wins"]
HTTPRoute/infra/shop via Gateway/infra/edge-overrides > Gateway/infra/edge-overrides#http > HTTPRoute/infra/shop:
  /limits/global = RateLimitPolicy.kuadrant.io/infra/overrides-older
  lost RateLimitPolicy.kuadrant.io/infra/overrides-younger Overridden by ["RateLimitPolicy.kuadrant.io/infra/overrides-older"] because ["older-wins"]
Gateway/infra/edge-merge via Gateway/infra/edge-merge:
  /limits/global = RateLimitPolicy.kuadrant.io/infra/merge-older
  /limits/per-user = RateLimitPolicy.kuadrant.io/infra/merge-younger
  /limits/burst = RateLimitPolicy.kuadrant.io/infra/merge-younger
  lost RateLimitPolicy.kuadrant.io/infra/merge-older PartiallyOverridden by ["RateLimitPolicy.kuadrant.io/infra/merge-younger"] because ["younger-wins"]
Gateway/infra/edge-atomic via Gateway/infra/edge-atomic:
  /limits/global = RateLimitPolicy.kuadrant.io/infra/atomic-younger
  lost RateLimitPolicy.kuadrant.io/infra/atomic-older Overridden by ["RateLimitPolicy.kuadrant.io/infra/atomic-younger"] because ["younger-wins"]
Gateway/infra/edge-overrides via Gateway/infra/edge-overrides:
  /limits/global = RateLimitPolicy.kuadrant.io/infra/overrides-older
  lost RateLimitPolicy.kuadrant.io/infra/overrides-younger Overridden by ["RateLimitPolicy.kuadrant.io/infra/overrides-older"] because ["older-wins"]
# hover
RateLimitPolicy.kuadrant.io/infra/merge-older: **Accepted** · PartiallyEnforced | `Gateway/infra/edge-merge`
On `HTTPRoute/infra/shop`:
- `limits.global: {"rates":[{"limit":1000,"window":"1m"}]}` · wins (Custom)
- PartiallyOverridden by `infra/merge-younger` (younger-wins)
RateLimitPolicy.kuadrant.io/infra/merge-younger: **Accepted** · Enforced
RateLimitPolicy.kuadrant.io/infra/atomic-older: **Accepted** · Overridden | `Gateway/infra/edge-atomic`
On `HTTPRoute/infra/shop`:
- Overridden by `infra/atomic-younger` (younger-wins)
RateLimitPolicy.kuadrant.io/infra/atomic-younger: **Accepted** · Enforced
RateLimitPolicy.kuadrant.io/infra/overrides-older: **Accepted** · Enforced
RateLimitPolicy.kuadrant.io/infra/overrides-younger: **Accepted** · Overridden | - Overridden by `infra/overrides-older` (older-wins)
# lens
RateLimitPolicy.kuadrant.io/infra/merge-older: affects 1 route · partly superseded
RateLimitPolicy.kuadrant.io/infra/merge-younger: affects 1 route
RateLimitPolicy.kuadrant.io/infra/atomic-older: affects nothing: overridden everywhere
RateLimitPolicy.kuadrant.io/infra/atomic-younger: affects 1 route
RateLimitPolicy.kuadrant.io/infra/overrides-older: affects 1 route
RateLimitPolicy.kuadrant.io/infra/overrides-younger: affects nothing: overridden everywhere
"#;
