use crate::workspace::Workspace;

/// Each object of the workspace as `key @ file [unit]`, sorted.
fn instances(files: &[(&str, &str)], config: &str) -> Vec<String> {
    let mut ws = Workspace::new();
    if !config.is_empty() {
        ws.set_config(Some(".policylens.yaml"), config);
    }
    for (p, t) in files {
        ws.set_file(p, *t);
    }
    let snap = ws.snapshot();
    let w = snap.world();
    let mut out: Vec<String> =
        w.ids().map(|id| format!("{} @ {} [{}]", w.key(id), w.file_of(id).path, w.unit(w.unit_of(id)))).collect();
    out.sort();
    out
}

const ROUTE: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\n  namespace: written\nspec:\n  parentRefs: [{name: gw}]\n";
const CLASS: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: eg\n";

#[test]
fn overlays_of_one_base_are_units_with_their_namespace_and_affixes() {
    // `kubectl kustomize overlays/prod` (kustomize v5.8): the namespace replaces the one
    // written, the prefix renames every object (a GatewayClass too), outer affixes wrap
    // inner ones; the base alone is no unit.
    let got = instances(
        &[
            ("base/kustomization.yaml", "resources: [app.yaml]\nnamePrefix: b-\n"),
            ("base/app.yaml", &format!("{ROUTE}---\n{CLASS}")),
            ("overlays/prod/kustomization.yaml", "namespace: prod\nnamePrefix: p-\nresources: [../../base]\n"),
            ("overlays/dev/kustomization.yaml", "namespace: dev\nresources: [../../base]\n"),
        ],
        "",
    );
    assert_eq!(
        got,
        [
            "GatewayClass/b-eg @ base/app.yaml [kustomization overlays/dev]",
            "GatewayClass/p-b-eg @ base/app.yaml [kustomization overlays/prod]",
            "HTTPRoute/dev/b-web @ base/app.yaml [kustomization overlays/dev]",
            "HTTPRoute/prod/p-b-web @ base/app.yaml [kustomization overlays/prod]",
        ]
    );
}

#[test]
fn a_lone_kustomization_is_part_of_the_workspace_and_its_patches_are_no_objects() {
    let got = instances(
        &[
            ("app/kustomization.yaml", "namespace: shop\nresources: [route.yaml]\npatches: [{path: patch.yaml}]\n"),
            ("app/route.yaml", ROUTE),
            ("app/patch.yaml", ROUTE),
            ("other.yaml", CLASS),
        ],
        "",
    );
    assert_eq!(
        got,
        ["GatewayClass/eg @ other.yaml [the workspace]", "HTTPRoute/shop/web @ app/route.yaml [the workspace]"]
    );
}

#[test]
fn a_charts_objects_are_in_the_release_namespace() {
    let got = instances(
        &[
            ("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 1.0.0\n"),
            ("chart/templates/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n"),
            (
                "chart/templates/ns.yaml",
                "apiVersion: v1\nkind: Service\nmetadata:\n  name: other\n  namespace: {{- .Release.Namespace }}\n",
            ),
            ("chart/values.yaml", "replicas: 1\n"),
        ],
        "",
    );
    assert_eq!(
        got,
        [
            "Service/{{ .Release.Namespace }}/api @ chart/templates/svc.yaml [the workspace]",
            "Service/{{ .Release.Namespace }}/other @ chart/templates/ns.yaml [the workspace]",
        ]
    );
}

#[test]
fn files_of_a_case_folder_are_cases_linked_by_what_only_another_defines() {
    let gw = "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: gw\n";
    let route = |name: &str| {
        format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: {name}\nspec:\n  parentRefs: [{{name: gw}}]\n"
        )
    };
    let policy = |target: &str| {
        format!(
            "apiVersion: example.com/v1\nkind: P\nmetadata:\n  name: p-{target}\nspec:\n  targetRef: {{group: gateway.networking.k8s.io, kind: HTTPRoute, name: {target}}}\n"
        )
    };
    let got = instances(
        &[
            // Leaned on by two cases: context for both.
            ("test/base/gateway.yaml", gw),
            ("test/cases/a.yaml", &route("a")),
            ("test/cases/b.yaml", &route("b")),
            // Leans on b.yaml's route, which only this file leans on: one case with it,
            // named after the file that leans.
            ("test/cases/b-policy.yaml", &policy("b")),
            // Outside every case folder: the workspace.
            ("deploy/class.yaml", CLASS),
        ],
        "",
    );
    assert_eq!(
        got,
        [
            "Gateway/default/gw @ test/base/gateway.yaml [the workspace]",
            "GatewayClass/eg @ deploy/class.yaml [the workspace]",
            "HTTPRoute/default/a @ test/cases/a.yaml [case test/cases/a.yaml]",
            "HTTPRoute/default/b @ test/cases/b.yaml [case test/cases/b-policy.yaml]",
            "P.example.com/default/p-b @ test/cases/b-policy.yaml [case test/cases/b-policy.yaml]",
        ]
    );
    // `caseFolders: []`: one workspace.
    let got = instances(&[("test/cases/a.yaml", &route("a")), ("test/cases/b.yaml", &route("b"))], "caseFolders: []\n");
    assert!(got.iter().all(|l| l.ends_with("[the workspace]")), "{got:?}");
}

#[test]
fn a_folder_named_with_a_case_word_holds_cases() {
    let route =
        |name: &str| format!("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: {name}\n");
    // Gateway API's hack/invalid-examples (whose inputs are meant to fail: in no unit); a word
    // inside a longer word (`testutils`, `latest`) is not one.
    let got = instances(
        &[
            ("hack/invalid-examples/a.yaml", &route("a")),
            ("hack/more-examples/a.yaml", &route("a")),
            ("hack/e2e_tests/b.yaml", &route("b")),
            ("internal/testutils/c.yaml", &route("c")),
            ("releases/latest/d.yaml", &route("d")),
        ],
        "",
    );
    assert_eq!(
        got,
        [
            "HTTPRoute/default/a @ hack/more-examples/a.yaml [case hack/more-examples/a.yaml]",
            "HTTPRoute/default/b @ hack/e2e_tests/b.yaml [case hack/e2e_tests/b.yaml]",
            "HTTPRoute/default/c @ internal/testutils/c.yaml [the workspace]",
            "HTTPRoute/default/d @ releases/latest/d.yaml [the workspace]",
        ]
    );
}

#[test]
fn worlds_name_folders_and_files_and_a_glob_matching_nothing_is_reported() {
    let got = instances(
        &[("cases/one.yaml", ROUTE), ("cases/two.yaml", CLASS), ("examples/a/x.yaml", CLASS)],
        "worlds: [\"cases/*.yaml\", \"examples/*\", \"nowhere/*\"]\ncaseFolders: []\n",
    );
    assert_eq!(
        got,
        [
            "GatewayClass/eg @ cases/two.yaml [world cases/two.yaml]",
            "GatewayClass/eg @ examples/a/x.yaml [world examples/a]",
            "HTTPRoute/written/web @ cases/one.yaml [world cases/one.yaml]",
        ]
    );
    let mut ws = Workspace::new();
    ws.set_config(Some(".policylens.yaml"), "worlds: [\"cases/*.yaml\", \"nowhere/*\"]\n");
    ws.set_file("cases/one.yaml", ROUTE);
    let snap = ws.snapshot();
    let d: Vec<String> = snap.diagnostics_for(".policylens.yaml").iter().map(|d| d.message.clone()).collect();
    assert_eq!(d, ["`nowhere/*` matches no file or folder"]);
}

const KS: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n";

#[test]
fn flux_kustomizations_apply_their_paths_with_target_namespace_and_variables() {
    // A bootstrap applying its cluster folder; the cluster's Kustomization applying
    // `apps` (no kustomization.yaml there: every manifest below it, a folder with one as
    // itself); each app's Kustomization applying `app` with targetNamespace, a shared component
    // and `APP`. fluxcd/pkg `kustomize/kustomize_generator.go`, `kustomize_varsub.go`.
    let ks = |name: &str, path: &str, extra: &str| {
        format!(
            "{KS}metadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  path: {path}\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n{extra}"
        )
    };
    let app = |name: &str, ns: &str| {
        format!(
            "{KS}metadata:\n  name: {name}\nspec:\n  path: ./apps/{ns}/{name}/app\n  targetNamespace: {ns}\n  components: [../../../../components/auth]\n  postBuild:\n    substitute: {{APP: {name}}}\n    substituteFrom: [{{kind: ConfigMap, name: settings}}]\n  sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}\n"
        )
    };
    let got = instances(
        &[
            ("clusters/home/sync.yaml", &ks("flux-system", "./clusters/home", "")),
            ("clusters/home/apps.yaml", &ks("apps", "./apps", "")),
            (
                "clusters/home/settings.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: flux-system\ndata:\n  DOMAIN: example.net\n",
            ),
            ("apps/net/kustomization.yaml", "namespace: net\nresources: [namespace.yaml, gw/ks.yaml]\n"),
            ("apps/net/namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: _\n"),
            ("apps/net/gw/ks.yaml", &ks("gw", "./apps/net/gw/app", "  targetNamespace: net\n")),
            (
                "apps/net/gw/app/gateway.yaml",
                "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: edge\n",
            ),
            ("apps/home/kustomization.yaml", "namespace: home\nresources: [a/ks.yaml, b/ks.yaml]\n"),
            ("apps/home/a/ks.yaml", &app("a", "home")),
            ("apps/home/a/app/kustomization.yaml", "resources: [route.yaml]\n"),
            (
                "apps/home/a/app/route.yaml",
                "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: ${APP}\nspec:\n  hostnames: [\"${APP}.${DOMAIN}\"]\n",
            ),
            (
                "apps/home/a/app/old.yaml",
                "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: old\n",
            ),
            ("apps/home/b/ks.yaml", &app("b", "home")),
            (
                "apps/home/b/app/route.yaml",
                "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: ${APP}-web\n",
            ),
            ("components/auth/kustomization.yaml", "kind: Component\nresources: [policy.yaml]\n"),
            (
                "components/auth/policy.yaml",
                "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata:\n  name: ${APP}-auth\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: \"${APP}\"}]\n",
            ),
            ("scratch/try.yaml", "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: try\n"),
        ],
        "",
    );
    assert_eq!(
        got,
        [
            "ConfigMap/flux-system/settings @ clusters/home/settings.yaml [the workspace]",
            "Gateway/net/edge @ apps/net/gw/app/gateway.yaml [the workspace]",
            "HTTPRoute/default/old @ apps/home/a/app/old.yaml [file applied by nothing, apps/home/a/app/old.yaml]",
            "HTTPRoute/default/try @ scratch/try.yaml [file applied by nothing, scratch/try.yaml]",
            "HTTPRoute/home/a @ apps/home/a/app/route.yaml [the workspace]",
            "HTTPRoute/home/b-web @ apps/home/b/app/route.yaml [the workspace]",
            "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/apps @ clusters/home/apps.yaml [the workspace]",
            "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system @ clusters/home/sync.yaml [the workspace]",
            "Kustomization.kustomize.toolkit.fluxcd.io/home/a @ apps/home/a/ks.yaml [the workspace]",
            "Kustomization.kustomize.toolkit.fluxcd.io/home/b @ apps/home/b/ks.yaml [the workspace]",
            "Kustomization.kustomize.toolkit.fluxcd.io/net/gw @ apps/net/gw/ks.yaml [the workspace]",
            "Namespace/net @ apps/net/namespace.yaml [the workspace]",
            "SecurityPolicy.gateway.envoyproxy.io/home/a-auth @ components/auth/policy.yaml [the workspace]",
            "SecurityPolicy.gateway.envoyproxy.io/home/b-auth @ components/auth/policy.yaml [the workspace]",
        ]
    );
}

#[test]
fn kustomize_replacements_set_where_flux_kustomizations_put_their_objects() {
    // The home-ops layout: each namespace folder's kustomization sets `namespace:`, adds a
    // component whose Namespace `not-used` the namespace transformer renames, and a
    // replacements file copying that name into every Flux Kustomization's targetNamespace
    // (created where none is written, replacing one that is). `shop` writes its replacements
    // inline: a reject, a source that is a Kustomization's spec.path, a metadata.namespace
    // target. Each Kustomization and namespace below was checked with `kubectl kustomize
    // --load-restrictor LoadRestrictionsNone apps/net` and `apps/shop` (kustomize v5.5.0).
    let ks = |name: &str, path: &str, extra: &str| {
        format!(
            "{KS}metadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  path: {path}\n{extra}  sourceRef: {{kind: GitRepository, name: flux-system}}\n"
        )
    };
    let route =
        |name: &str| format!("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: {name}\n");
    let shop = "namespace: shop
resources: [namespace.yaml, api.yaml, keep.yaml, settings.yaml]
replacements:
  - source: {kind: Namespace}
    targets:
      - select: {group: kustomize.toolkit.fluxcd.io, kind: Kustomization}
        reject: [{name: keep}]
        fieldPaths: [spec.targetNamespace]
  - source: {kind: Kustomization, name: keep, fieldPath: spec.path}
    targets:
      - select: {kind: Kustomization, name: api}
        fieldPaths: [spec.path]
  - source: {kind: Kustomization, name: keep, fieldPath: spec.targetNamespace}
    targets:
      - select: {kind: ConfigMap}
        fieldPaths: [metadata.namespace]
";
    let got = instances(
        &[
            ("clusters/home/sync.yaml", &ks("flux-system", "./clusters/home", "")),
            ("clusters/home/apps.yaml", &ks("apps", "./apps", "")),
            (
                "apps/net/kustomization.yaml",
                "namespace: net\ncomponents: [../../components/ns]\nreplacements:\n  - path: ../../components/replacements/ks.yaml\nresources: [gw.yaml, web.yaml]\n",
            ),
            ("apps/net/gw.yaml", &ks("gw", "./base/gw", "")),
            ("apps/net/web.yaml", &ks("web", "./base/web", "  targetNamespace: written\n")),
            ("components/ns/kustomization.yaml", "kind: Component\nresources: [namespace.yaml]\n"),
            ("components/ns/namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: not-used\n"),
            (
                "components/replacements/ks.yaml",
                "- source: {kind: Namespace, fieldPath: metadata.name}\n  targets:\n    - select: {group: kustomize.toolkit.fluxcd.io, kind: Kustomization}\n      fieldPaths: [spec.targetNamespace]\n      options: {create: true}\n",
            ),
            ("apps/shop/kustomization.yaml", shop),
            ("apps/shop/namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: _\n"),
            ("apps/shop/api.yaml", &ks("api", "./base/api", "  targetNamespace: x\n")),
            ("apps/shop/keep.yaml", &ks("keep", "./base/keep", "  targetNamespace: kept\n")),
            ("apps/shop/settings.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"),
            (
                "base/gw/gateway.yaml",
                "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: edge\n",
            ),
            ("base/web/route.yaml", &route("web")),
            ("base/api/route.yaml", &route("api")),
            ("base/keep/route.yaml", &route("keep")),
        ],
        "",
    );
    assert_eq!(
        got,
        [
            "ConfigMap/kept/settings @ apps/shop/settings.yaml [the workspace]",
            "Gateway/net/edge @ base/gw/gateway.yaml [the workspace]",
            "HTTPRoute/default/api @ base/api/route.yaml [file applied by nothing, base/api/route.yaml]",
            "HTTPRoute/kept/keep @ base/keep/route.yaml [the workspace]",
            "HTTPRoute/net/web @ base/web/route.yaml [the workspace]",
            "HTTPRoute/shop/keep @ base/keep/route.yaml [the workspace]",
            "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/apps @ clusters/home/apps.yaml [the workspace]",
            "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system @ clusters/home/sync.yaml [the workspace]",
            "Kustomization.kustomize.toolkit.fluxcd.io/net/gw @ apps/net/gw.yaml [the workspace]",
            "Kustomization.kustomize.toolkit.fluxcd.io/net/web @ apps/net/web.yaml [the workspace]",
            "Kustomization.kustomize.toolkit.fluxcd.io/shop/api @ apps/shop/api.yaml [the workspace]",
            "Kustomization.kustomize.toolkit.fluxcd.io/shop/keep @ apps/shop/keep.yaml [the workspace]",
            "Namespace/net @ components/ns/namespace.yaml [the workspace]",
            "Namespace/shop @ apps/shop/namespace.yaml [the workspace]",
        ]
    );
}

#[test]
fn flux_paths_that_name_no_file_say_nothing_about_what_is_applied() {
    // A folder holding a Flux repository below it, opened whole: the Kustomization's paths
    // are relative to that repository's root, not this folder's.
    let got = instances(
        &[
            (
                "repos/flux/clusters/home/sync.yaml",
                &format!(
                    "{KS}metadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  path: ./clusters/home\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"
                ),
            ),
            ("demo/route.yaml", ROUTE),
        ],
        "",
    );
    assert_eq!(
        got,
        [
            "HTTPRoute/written/web @ demo/route.yaml [the workspace]",
            "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system @ repos/flux/clusters/home/sync.yaml [the workspace]",
        ]
    );
}

const APP: &str = "apiVersion: argoproj.io/v1alpha1\nkind: Application\n";
const APPSET: &str = "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\n";

/// An HTTPRoute named `name` that writes no namespace.
fn bare_route(name: &str) -> String {
    format!("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: {name}\n")
}

#[test]
fn argo_cd_applications_apply_their_paths_with_their_destination_namespace() {
    // The app of apps applies `argocd/` (recurse); an ApplicationSet makes one Application per
    // folder of `apps/` but `apps/old` (fasttemplate `{{path.basename}}`), another one per
    // list element (`goTemplate`, `{{.tenant}}`). argo-cd 37ee009: `destination.namespace`
    // goes only on objects that name none (`controller/state.go` `NormalizeTargetObjects`), a
    // kustomization's `namespace:` still wins, a directory source without `recurse` applies
    // the folder's own files (`reposerver/repository/repository.go`).
    let got = instances(
        &[
            (
                "bootstrap/root.yaml",
                &format!(
                    "{APP}metadata:\n  name: root\n  namespace: argocd\nspec:\n  source:\n    repoURL: https://git.example.com/gitops.git\n    path: argocd\n    directory:\n      recurse: true\n  destination:\n    namespace: argocd\n"
                ),
            ),
            (
                "argocd/sets/apps.yaml",
                &format!(
                    "{APPSET}metadata:\n  name: apps\n  namespace: argocd\nspec:\n  generators:\n  - git:\n      repoURL: https://git.example.com/gitops.git\n      directories:\n      - path: apps/*\n      - path: apps/old\n        exclude: true\n  template:\n    metadata:\n      name: '{{{{path.basename}}}}'\n    spec:\n      source:\n        repoURL: https://git.example.com/gitops.git\n        path: '{{{{path}}}}'\n      destination:\n        namespace: '{{{{path.basename}}}}'\n"
                ),
            ),
            (
                "argocd/tenants.yaml",
                &format!(
                    "{APPSET}metadata:\n  name: tenants\n  namespace: argocd\nspec:\n  goTemplate: true\n  generators:\n  - list:\n      elements:\n      - tenant: blue\n      - tenant: green\n  template:\n    metadata:\n      name: 't-{{{{.tenant}}}}'\n    spec:\n      source:\n        repoURL: https://git.example.com/gitops.git\n        path: tenants/base\n        kustomize:\n          namePrefix: '{{{{.tenant}}}}-'\n      destination:\n        namespace: 't-{{{{ .tenant }}}}'\n"
                ),
            ),
            ("apps/web/route.yaml", &format!("{}---\n{ROUTE}", bare_route("web"))),
            ("apps/web/deep/route.yaml", &bare_route("deep")),
            ("apps/kz/kustomization.yaml", "namespace: kz-own\nnamePrefix: in-\nresources: [route.yaml]\n"),
            ("apps/kz/route.yaml", &bare_route("kz")),
            ("apps/old/route.yaml", &bare_route("old")),
            ("tenants/base/kustomization.yaml", "resources: [route.yaml]\n"),
            ("tenants/base/route.yaml", &bare_route("portal")),
        ],
        "",
    );
    assert_eq!(
        got,
        [
            "Application.argoproj.io/argocd/root @ bootstrap/root.yaml [the workspace]",
            "ApplicationSet.argoproj.io/argocd/apps @ argocd/sets/apps.yaml [the workspace]",
            "ApplicationSet.argoproj.io/argocd/tenants @ argocd/tenants.yaml [the workspace]",
            "HTTPRoute/default/deep @ apps/web/deep/route.yaml [file applied by nothing, apps/web/deep/route.yaml]",
            "HTTPRoute/default/old @ apps/old/route.yaml [file applied by nothing, apps/old/route.yaml]",
            "HTTPRoute/kz-own/in-kz @ apps/kz/route.yaml [the workspace]",
            "HTTPRoute/t-blue/blue-portal @ tenants/base/route.yaml [the workspace]",
            "HTTPRoute/t-green/green-portal @ tenants/base/route.yaml [the workspace]",
            "HTTPRoute/web/web @ apps/web/route.yaml [the workspace]",
            "HTTPRoute/written/web @ apps/web/route.yaml [the workspace]",
        ]
    );
}

#[test]
fn argo_cd_directory_globs_charts_and_what_the_files_do_not_tell() {
    let app = |name: &str, source: &str| {
        format!(
            "{APP}metadata:\n  name: {name}\n  namespace: argocd\nspec:\n  source:\n    repoURL: https://git.example.com/gitops.git\n{source}  destination:\n    namespace: {name}\n"
        )
    };
    // `include`/`exclude` are globs relative to the path in which `*` crosses `/` (gobwas/glob
    // as argo-cd's `util/glob` compiles it); a repository chart's source renders nothing of
    // these files; a path naming no folder here is another repository's.
    let files = [
        (
            "argocd/web.yaml",
            app(
                "web",
                "    path: web\n    directory:\n      recurse: true\n      include: '{*.yaml,sub/*.yml}'\n      exclude: '*skip*'\n",
            ),
        ),
        ("argocd/chart.yaml", app("chart", "    chart: app-template\n    targetRevision: 4.2.0\n")),
        ("argocd/elsewhere.yaml", app("elsewhere", "    path: deploy/upstream\n")),
        ("web/a.yaml", bare_route("a")),
        ("web/sub/b.yml", bare_route("b")),
        ("web/sub/c.yaml", bare_route("c")),
        ("web/d.yml", bare_route("d")),
        ("web/skip-me.yaml", bare_route("skip")),
    ];
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let got = instances(&refs, "");
    assert_eq!(
        got,
        [
            "Application.argoproj.io/argocd/chart @ argocd/chart.yaml [the workspace]",
            "Application.argoproj.io/argocd/elsewhere @ argocd/elsewhere.yaml [the workspace]",
            "Application.argoproj.io/argocd/web @ argocd/web.yaml [the workspace]",
            "HTTPRoute/default/d @ web/d.yml [file applied by nothing, web/d.yml]",
            "HTTPRoute/default/skip @ web/skip-me.yaml [file applied by nothing, web/skip-me.yaml]",
            "HTTPRoute/web/a @ web/a.yaml [the workspace]",
            "HTTPRoute/web/b @ web/sub/b.yml [the workspace]",
            "HTTPRoute/web/c @ web/sub/c.yaml [the workspace]",
        ]
    );
    // A matrix of a git directories generator and a clusters generator: the path and the
    // namespace are the folder's, whatever the cluster (argo-cd `matrix.go`), so what is applied
    // is known; a path the clusters' parameters fill in is not, so no file is then said to be
    // applied by nothing.
    let set = |path: &str| {
        format!(
            "{APPSET}metadata:\n  name: per-cluster\n  namespace: argocd\nspec:\n  goTemplate: true\n  generators:\n  - matrix:\n      generators:\n      - git:\n          repoURL: https://git.example.com/gitops.git\n          directories: [{{path: 'web/*'}}]\n      - clusters: {{}}\n  template:\n    metadata:\n      name: '{{{{.name}}}}-{{{{.path.basename}}}}'\n    spec:\n      source:\n        repoURL: https://git.example.com/gitops.git\n        path: '{path}'\n      destination:\n        name: '{{{{.name}}}}'\n        namespace: '{{{{.path.basename}}}}'\n"
        )
    };
    let mut refs = refs;
    let known = set("{{.path.path}}");
    refs.push(("argocd/per-cluster.yaml", &known));
    let got = instances(&refs, "");
    assert!(got.contains(&"HTTPRoute/sub/c @ web/sub/c.yaml [the workspace]".to_owned()), "{got:#?}");
    assert!(
        got.contains(&"HTTPRoute/default/d @ web/d.yml [file applied by nothing, web/d.yml]".to_owned()),
        "{got:#?}"
    );
    let open = set("{{.metadata.labels.path}}");
    refs.pop();
    refs.push(("argocd/per-cluster.yaml", &open));
    let got = instances(&refs, "");
    assert!(got.iter().all(|l| !l.contains("applied by nothing")), "{got:#?}");
    // Only paths that name no folder here: not this repository's Applications.
    let got = instances(
        &[
            ("argocd/elsewhere.yaml", &app("elsewhere", "    path: deploy/upstream\n")),
            ("web/a.yaml", &bare_route("a")),
        ],
        "",
    );
    assert_eq!(
        got,
        [
            "Application.argoproj.io/argocd/elsewhere @ argocd/elsewhere.yaml [the workspace]",
            "HTTPRoute/default/a @ web/a.yaml [the workspace]",
        ]
    );
}
