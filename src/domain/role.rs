//! Staff roles: what each member of staff may do. They form a ladder:
//! each role may do everything the ones below it may, and more.
//! The role matrix in docs/box-office.md says which role each route needs;
//! a test walks every route with every role against it.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Scans tickets at the door.
    Door,
    /// Sells, holds, blocks and reseats.
    BoxOffice,
    /// Refunds; events, venues and the designer; webhooks; closing and
    /// cancelling.
    Manager,
    /// Staff accounts.
    Admin,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Door, Role::BoxOffice, Role::Manager, Role::Admin];

    /// The name stored in `staff.role` and given to the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Door => "door",
            Role::BoxOffice => "box_office",
            Role::Manager => "manager",
            Role::Admin => "admin",
        }
    }

    /// As people read it.
    pub fn label(self) -> &'static str {
        match self {
            Role::Door => "door",
            Role::BoxOffice => "box office",
            Role::Manager => "manager",
            Role::Admin => "admin",
        }
    }

    pub fn parse(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.as_str() == name)
    }

    /// Whether this role may do what `needed` may.
    pub fn covers(self, needed: Role) -> bool {
        self >= needed
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::Role;

    #[test]
    fn names_read_back_and_the_ladder_is_ordered() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        assert_eq!(Role::parse("root"), None);
        assert_eq!(Role::parse("Manager"), None);
        assert!(Role::Admin.covers(Role::Door));
        assert!(Role::Manager.covers(Role::BoxOffice));
        assert!(!Role::BoxOffice.covers(Role::Manager));
        assert!(!Role::Door.covers(Role::BoxOffice));
    }
}
