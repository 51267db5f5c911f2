//! Which controller serves each Gateway (docs/semantics.md §4.4.1): its GatewayClass's
//! `controllerName` when the class is in the Gateway's world, else the controller of a class
//! an implementation creates itself (`istio`, `cilium`, `gke-l7-*`, ...). Nothing for a class
//! that is neither: its controller is unknown, and assumed to act on every kind.

use crate::catalog::controllers::{CreatedClass, Implementation, created_class, implementation};
use crate::model::{Body, GATEWAY_GROUP, Gateway, GroupKind};
use crate::world::{ObjId, World};

/// A Gateway's controller and where policylens learnt it.
#[derive(Clone, Debug, PartialEq)]
pub struct Served {
    pub controller_name: String,
    pub via: Via,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Via {
    /// The GatewayClass object the Gateway's `gatewayClassName` resolves to.
    Class(ObjId),
    /// A class the implementation creates itself; no object in the world.
    Created(&'static CreatedClass),
}

impl Served {
    pub fn implementation(&self) -> Option<&'static Implementation> {
        implementation(&self.controller_name)
    }

    /// `Istio (istio.io/gateway-controller)`, or the bare controllerName when unknown.
    pub fn describe(&self) -> String {
        match self.implementation() {
            Some(i) => format!("{} (`{}`)", i.name, self.controller_name),
            None => format!("`{}`", self.controller_name),
        }
    }
}

/// The controller of Gateway `gw`, from the class object it resolves to (`class`) or the
/// class name it writes.
pub(super) fn resolve(world: &World, gw: &Gateway, class: Option<ObjId>) -> Option<Served> {
    if let Some(c) = class {
        return match &world.object(c).body {
            Body::GatewayClass(gc) => gc
                .controller_name
                .as_ref()
                .filter(|n| !n.is_empty())
                .map(|n| Served { controller_name: n.clone(), via: Via::Class(c) }),
            _ => None,
        };
    }
    let name = gw.class_name.as_ref()?;
    let created = created_class(&name.value)?;
    Some(Served { controller_name: created.controller_name.to_owned(), via: Via::Created(created) })
}

pub(super) fn gateway_class_kind() -> GroupKind {
    GroupKind::new(GATEWAY_GROUP, "GatewayClass")
}
