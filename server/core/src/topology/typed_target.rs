//! Reading a §2.1 reference typed by a user (`explain --target`, `policylens/explain`).

use super::{NodeId, Topology};
use crate::model::{ObjectKey, is_core_kind};
use crate::suggest;
use crate::world::World;

/// Why a typed reference names no node.
#[derive(Clone, Debug, PartialEq)]
pub enum TargetError {
    /// Not of the form `Kind[.group]/[namespace/]name[#section]`.
    Malformed,
    NotFound {
        key: Box<ObjectKey>,
        suggestion: Option<String>,
    },
}

impl std::fmt::Display for TargetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TargetError::Malformed => f.write_str(
                "is not a reference; write `Kind[.group]/[namespace/]name[#section]`, e.g. `HTTPRoute/shop/checkout#pay`",
            ),
            TargetError::NotFound { key, suggestion } => {
                write!(f, "`{key}` is not in the workspace")?;
                match suggestion {
                    Some(s) => write!(f, "; did you mean `{s}`?"),
                    None => Ok(()),
                }
            }
        }
    }
}

impl Topology {
    /// The reference of every node, by node id: what `explain --target` can be asked.
    pub fn target_keys(&self, world: &World) -> Vec<String> {
        (0..self.node_count() as u32).map(|i| self.node_key(world, NodeId(i)).to_string()).collect()
    }

    /// The node a typed reference names. A namespaced kind written without a namespace is
    /// looked up in the default namespace; a miss proposes the closest node reference.
    pub fn resolve_target(&self, world: &World, text: &str) -> Result<NodeId, TargetError> {
        let key = ObjectKey::parse(text.trim(), is_core_kind).ok_or(TargetError::Malformed)?;
        let found = self.find(world, &key).or_else(|| {
            let mut k = key.clone();
            k.namespace = Some(world.default_namespace.to_string());
            key.namespace.is_none().then(|| self.find(world, &k)).flatten()
        });
        if let Some(n) = found {
            return Ok(n);
        }
        let keys: Vec<String> = self.target_keys(world);
        // Kinds are written in any case at the terminal (`httproute/shop/web`); `Kind/name`
        // means the default namespace, as above.
        let wanted = text.trim().to_ascii_lowercase();
        let defaulted = match wanted.split_once('/') {
            Some((kind, rest)) if !rest.contains('/') => format!("{kind}/{}/{rest}", world.default_namespace),
            _ => wanted.clone(),
        };
        if let Some(i) = keys.iter().position(|k| {
            let k = k.to_ascii_lowercase();
            k == wanted || k == defaulted
        }) {
            return Ok(NodeId(i as u32));
        }
        Err({
            let suggestion = suggest::closest(text.trim(), keys.iter().map(String::as_str)).map(str::to_owned);
            TargetError::NotFound { key: Box::new(key), suggestion }
        })
    }
}
