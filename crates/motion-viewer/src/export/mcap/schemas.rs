//! The `ros2msg` schemas of the messages our bags carry: each message's
//! definition followed by those of the messages it uses, each after a line
//! of 80 `=` and `MSG: package/Type`, as `ros2 bag record` stores them in an
//! MCAP file (the MCAP spec's `ros2msg` schema encoding).

/// A schema: its name (`sensor_msgs/msg/JointState`) and its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schema {
    /// The type's full name.
    pub name: &'static str,
    /// The definition with its dependencies.
    pub text: &'static str,
}

macro_rules! sep {
    () => {
        "================================================================================\n"
    };
}

macro_rules! header_deps {
    () => {
        concat!(
            sep!(),
            "MSG: std_msgs/Header\n",
            "builtin_interfaces/Time stamp\n",
            "string frame_id\n",
            sep!(),
            "MSG: builtin_interfaces/Time\n",
            "int32 sec\n",
            "uint32 nanosec\n"
        )
    };
}

macro_rules! quaternion_dep {
    () => {
        concat!(
            sep!(),
            "MSG: geometry_msgs/Quaternion\n",
            "float64 x\n",
            "float64 y\n",
            "float64 z\n",
            "float64 w\n"
        )
    };
}

macro_rules! pose_deps {
    () => {
        concat!(
            sep!(),
            "MSG: geometry_msgs/Point\n",
            "float64 x\n",
            "float64 y\n",
            "float64 z\n",
            quaternion_dep!()
        )
    };
}

/// `sensor_msgs/msg/JointState`.
pub(crate) const JOINT_STATE: Schema = Schema {
    name: "sensor_msgs/msg/JointState",
    text: concat!(
        "std_msgs/Header header\n",
        "string[] name\n",
        "float64[] position\n",
        "float64[] velocity\n",
        "float64[] effort\n",
        header_deps!()
    ),
};

/// `tf2_msgs/msg/TFMessage`.
pub(crate) const TF_MESSAGE: Schema = Schema {
    name: "tf2_msgs/msg/TFMessage",
    text: concat!(
        "geometry_msgs/TransformStamped[] transforms\n",
        sep!(),
        "MSG: geometry_msgs/TransformStamped\n",
        "std_msgs/Header header\n",
        "string child_frame_id\n",
        "geometry_msgs/Transform transform\n",
        header_deps!(),
        sep!(),
        "MSG: geometry_msgs/Transform\n",
        "geometry_msgs/Vector3 translation\n",
        "geometry_msgs/Quaternion rotation\n",
        sep!(),
        "MSG: geometry_msgs/Vector3\n",
        "float64 x\n",
        "float64 y\n",
        "float64 z\n",
        quaternion_dep!()
    ),
};

/// `std_msgs/msg/String`.
pub(crate) const STRING: Schema = Schema {
    name: "std_msgs/msg/String",
    text: "string data\n",
};

/// `std_msgs/msg/Bool`.
pub const BOOL: Schema = Schema {
    name: "std_msgs/msg/Bool",
    text: "bool data\n",
};

/// `geometry_msgs/msg/PoseStamped`.
pub(crate) const POSE_STAMPED: Schema = Schema {
    name: "geometry_msgs/msg/PoseStamped",
    text: concat!(
        "std_msgs/Header header\n",
        "geometry_msgs/Pose pose\n",
        header_deps!(),
        sep!(),
        "MSG: geometry_msgs/Pose\n",
        "geometry_msgs/Point position\n",
        "geometry_msgs/Quaternion orientation\n",
        pose_deps!()
    ),
};
