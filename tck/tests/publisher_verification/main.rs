//! Self-tests of the publisher verification: conforming publishers pass
//! every rule; each deliberately broken publisher fails the rules it breaks,
//! with the intended message.

mod conforming;
