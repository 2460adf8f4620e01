//! An AIBO motion in a ROS 2 bag: the robot's description and its fixed
//! links once, then per frame its joint states and the moving links on `/tf`.

use std::path::Path;

use super::cdr::Cdr;
use super::{Bag, Namespace, Transform, schemas};
use crate::anim::aibo::MtnRig;
use crate::error::Result;
use crate::export::finite;
use crate::export::robot::{BASE_LINK, Robot, joint_positions, joint_transforms, unknown_model};
use crate::export::table::Sampling;

/// An AIBO motion: its description once, then joint states and transforms per frame.
pub(super) fn write(
    bag: &mut Bag,
    ns: &Namespace,
    motion: &crate::formats::mtn::Mtn,
    path: &Path,
    sampling: &Sampling,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let rig = MtnRig::new(motion);
    let robot = Robot::new(rig.drawn_as());
    warnings.extend(unknown_model(motion, &rig, path));
    let start = bag.stamp(sampling.start_s);
    // The description names its links as the transforms below name their
    // frames (`track2/base_link` in a bag of several files), so a reader that
    // builds the robot from it (Rerun, RViz) moves it by this track's `/tf`.
    let urdf = crate::export::urdf::document(&robot.framed(&ns.frame));
    bag.string(&ns.topic("/robot_description"), true, start, &urdf)?;
    let fixed: Vec<Transform> = robot
        .joints
        .iter()
        .filter(|j| !j.moves())
        .map(|j| {
            (
                ns.frame(&j.parent),
                ns.frame(&j.child),
                j.origin,
                [0.0, 0.0, 0.0, 1.0],
            )
        })
        .collect();
    bag.tf(&ns.topic("/tf_static"), true, start, &fixed)?;
    let names: Vec<&str> = robot.moving_joints().map(|j| j.name.as_str()).collect();
    for row in 0..sampling.rows {
        let t = sampling.time(row);
        let stamp = bag.stamp(t);
        let (_, pose) = rig.pose(t);
        let positions = joint_positions(&robot, &pose.angles_deg);
        let attitude =
            glam::DQuat::from_mat3(&glam::DMat3::from_cols_array_2d(&pose.body_rotation));
        for (k, v) in attitude.to_array().iter().enumerate() {
            finite::check(*v, path, t, || format!("body attitude quaternion [{k}]"))?;
        }
        let mut m = Cdr::new();
        m.header(stamp, "")
            .strings(&names)
            .f64s(&positions)
            .f64s(&[])
            .f64s(&[]);
        bag.write(
            &ns.topic("/joint_states"),
            schemas::JOINT_STATE,
            false,
            stamp,
            m.finish(),
        )?;
        let mut transforms: Vec<Transform> = vec![(
            ns.frame("world"),
            ns.frame(BASE_LINK),
            [0.0; 3],
            attitude.to_array(),
        )];
        for (j, (origin, q)) in robot
            .joints
            .iter()
            .zip(joint_transforms(&robot, &positions))
        {
            if j.moves() {
                transforms.push((ns.frame(&j.parent), ns.frame(&j.child), origin, q));
            }
        }
        bag.tf(&ns.topic("/tf"), false, stamp, &transforms)?;
    }
    Ok(())
}
