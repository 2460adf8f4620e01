//! The physical model in rapier: the trunk and the servo links as one
//! multibody (reduced coordinates, as MuJoCo's), each servo a revolute joint
//! with a force-based position motor, the colliders meeting a fixed ground
//! box only. rapier's vectors are its own glam's: this file converts at the
//! border.

use glam::{DQuat, DVec3};
use rapier3d_f64::prelude::{
    ColliderBuilder, Group, InteractionGroups, InteractionTestMode, JointAxis, MassProperties,
    MotorModel, MultibodyJointHandle, PhysicsWorld, RevoluteJointBuilder, RigidBodyBuilder,
    RigidBodyHandle,
};

use crate::anim::aibo::physical::{GRAVITY_M_S2, Geom, PhysicalModel, STEP_S};

type RVec = rapier3d_f64::math::Vector;
type RQuat = rapier3d_f64::math::Rotation;
type RPose = rapier3d_f64::math::Pose;

fn rv(v: DVec3) -> RVec {
    RVec::new(v.x, v.y, v.z)
}

fn rq(q: DQuat) -> RQuat {
    RQuat::from_xyzw(q.x, q.y, q.z, q.w)
}

fn dv(v: RVec) -> DVec3 {
    DVec3::new(v.x, v.y, v.z)
}

fn dq(q: RQuat) -> DQuat {
    DQuat::from_xyzw(q.x, q.y, q.z, q.w)
}

/// rapier substeps per fixed step.
pub(super) const SUBSTEPS: usize = 1;

/// Robot colliders meet the ground, not each other.
const ROBOT: InteractionGroups =
    InteractionGroups::new(Group::GROUP_2, Group::GROUP_1, InteractionTestMode::And);
const GROUND: InteractionGroups =
    InteractionGroups::new(Group::GROUP_1, Group::GROUP_2, InteractionTestMode::And);

/// A physical AIBO on the ground in rapier.
pub(super) struct World {
    world: PhysicsWorld,
    /// Each link's rigid body, [`PhysicalModel::links`] order.
    bodies: Vec<RigidBodyHandle>,
    /// Each servo's joint, servo order.
    joints: Vec<MultibodyJointHandle>,
    /// Each servo's link index and axis (parent frame).
    servo_links: Vec<(usize, usize, DVec3)>,
    kp: f64,
    kd: f64,
}

impl World {
    /// The dog of `physical` with its trunk at (`position`, `attitude`) and
    /// its servos at `angles` (radians, servo order), at rest.
    pub(super) fn new(
        physical: &PhysicalModel,
        position: DVec3,
        attitude: DQuat,
        angles: &[f64],
    ) -> World {
        let mut world = PhysicsWorld {
            gravity: RVec::new(0.0, 0.0, -GRAVITY_M_S2),
            ..PhysicsWorld::default()
        };
        let p = &mut world.integration_parameters;
        p.dt = STEP_S;
        // Penetration allowed before the contact pushes back: 1 mm, about
        // MuJoCo's under a standing dog's weight.
        p.normalized_allowed_linear_error = 0.001;
        // One substep a 2 ms step (rapier's default is four): the multibody's
        // mass matrix, the cost of a step, is rebuilt once a substep, and the
        // bodies stay as close to MuJoCo's over the first second as with two
        // substeps of 1 ms (docs/physics.md §4).
        p.num_solver_iterations = SUBSTEPS;
        let ground = world.bodies.insert(RigidBodyBuilder::fixed().build());
        world.colliders.insert_with_parent(
            ColliderBuilder::cuboid(50.0, 50.0, 0.5)
                .translation(RVec::new(0.0, 0.0, -0.5))
                .friction(physical.friction)
                .collision_groups(GROUND)
                .build(),
            ground,
            &mut world.bodies,
        );
        let frames = physical.frames(position, attitude, angles);
        let mut bodies = Vec::with_capacity(physical.links.len());
        for (link, &(o, q)) in physical.links.iter().zip(&frames) {
            let mass = MassProperties::new(
                rv(DVec3::from_array(link.com)),
                link.mass,
                rv(DVec3::from_array(link.inertia)),
            );
            let body = world.bodies.insert(
                RigidBodyBuilder::dynamic()
                    .pose(RPose::from_parts(rv(o), rq(q)))
                    .additional_mass_properties(mass)
                    .can_sleep(false)
                    .build(),
            );
            for c in &link.colliders {
                let builder = match c.geom {
                    Geom::Box { centre, half } => {
                        ColliderBuilder::cuboid(half[0], half[1], half[2])
                            .translation(rv(DVec3::from_array(centre)))
                    }
                    Geom::Sphere { centre, radius } => {
                        ColliderBuilder::ball(radius).translation(rv(DVec3::from_array(centre)))
                    }
                    Geom::Capsule { from, to, radius } => ColliderBuilder::capsule_from_endpoints(
                        rv(DVec3::from_array(from)),
                        rv(DVec3::from_array(to)),
                        radius,
                    ),
                };
                world.colliders.insert_with_parent(
                    builder
                        .density(0.0)
                        .friction(physical.friction)
                        .collision_groups(ROBOT)
                        .build(),
                    body,
                    &mut world.bodies,
                );
            }
            bodies.push(body);
        }
        let g = physical.servo;
        let mut joints = Vec::new();
        let mut servo_links = Vec::new();
        for (i, servo) in physical.servos() {
            let link = &physical.links[i];
            let parent = link.parent.expect("a servo's link has a parent");
            let axis = DVec3::from_array(servo.axis);
            let k = joints.len();
            let mut joint = RevoluteJointBuilder::new(rv(axis))
                .local_anchor1(rv(DVec3::from_array(link.origin)))
                .local_anchor2(RVec::ZERO);
            if let Some((lower, upper)) = servo.range {
                joint = joint.limits([lower, upper]);
            }
            let joint = joint
                .motor_model(MotorModel::ForceBased)
                .motor_position(angles[k], g.kp, g.kd)
                .motor_max_force(g.torque_limit_nm)
                .contacts_enabled(false);
            let handle = world
                .multibody_joints
                .insert(bodies[parent], bodies[i], joint, true)
                .expect("a tree of links");
            joints.push(handle);
            servo_links.push((i, parent, axis));
        }
        // The joints start at the given angles, not at zero.
        for (handle, &angle) in joints.iter().zip(angles) {
            if let Some((mb, link)) = world.multibody_joints.get_mut(*handle)
                && let Some(link) = mb.link_mut(link)
            {
                link.joint.apply_displacement(&[angle]);
            }
        }
        if let Some(&first) = joints.first()
            && let Some((mb, _)) = world.multibody_joints.get_mut(first)
        {
            mb.forward_kinematics(&world.bodies, true);
            mb.update_rigid_bodies(&mut world.bodies, true);
        }
        World {
            world,
            bodies,
            joints,
            servo_links,
            kp: g.kp,
            kd: g.kd,
        }
    }

    /// One step with the servos' targets at `targets` (radians, servo order).
    pub(super) fn step(&mut self, targets: &[f64]) {
        for (handle, &target) in self.joints.iter().zip(targets) {
            if let Some((mb, link)) = self.world.multibody_joints.get_mut(*handle)
                && let Some(link) = mb.link_mut(link)
            {
                link.joint
                    .data
                    .set_motor_position(JointAxis::AngX, target, self.kp, self.kd);
            }
        }
        self.world.step();
    }

    /// Every link's origin and attitude in the world.
    pub(super) fn link_frames(&self) -> Vec<(DVec3, DQuat)> {
        self.bodies
            .iter()
            .map(|h| {
                let pose = self.world.bodies[*h].position();
                (dv(pose.translation), dq(pose.rotation))
            })
            .collect()
    }

    /// Each servo's reached angle, radians: the child's turn about the
    /// axis relative to its parent, from the link frames.
    pub(super) fn angles(&self, frames: &[(DVec3, DQuat)]) -> Vec<f64> {
        self.servo_links
            .iter()
            .map(|&(child, parent, axis)| {
                let relative = frames[parent].1.inverse() * frames[child].1;
                let (v, w) = (DVec3::new(relative.x, relative.y, relative.z), relative.w);
                // q and −q are the same turn: keep the angle in (−π, π].
                let angle = 2.0 * v.dot(axis).atan2(w);
                if angle > std::f64::consts::PI {
                    angle - std::f64::consts::TAU
                } else if angle <= -std::f64::consts::PI {
                    angle + std::f64::consts::TAU
                } else {
                    angle
                }
            })
            .collect()
    }
}
