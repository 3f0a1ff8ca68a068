"""The renderer's GLSL: instanced unit shapes, flat shading, and up to three outputs per pixel (colour, depth
along the optical axis, object index + 1, so that the cleared 0 means nothing)."""

from collections.abc import Sequence

VERTEX_SHADER = """
#version 330
uniform mat4 view_projection;
uniform vec2 depth_terms;  // near, and B of the projection's depth: z_ndc = A + B / depth
uniform vec3 eye;
in vec3 in_position;
in vec3 in_normal;
in vec3 i_centre;
in vec3 i_half;
in vec3 i_colour;
in float i_index;
in float i_glows;
in float i_lift;
out vec3 v_colour;
out float v_depth;
flat out int v_index;
flat out int v_around_eye;
const vec3 LIGHT = normalize(vec3(0.35, 0.85, 0.4));
void main() {
    vec4 clip = view_projection * vec4(i_centre + in_position * i_half, 1.0);
    v_depth = clip.w;  // the projection puts the depth along the optical axis in w
    // The depth test sees the instance i_lift nearer: its NDC depth (A + B / depth) is shifted by what
    // the lift changes at its centre. A shift per instance keeps clip z linear, so clipping stays right.
    float centre = max((view_projection * vec4(i_centre, 1.0)).w, depth_terms.x);
    float shift = depth_terms.y / max(centre - i_lift, depth_terms.x) - depth_terms.y / centre;
    gl_Position = vec4(clip.xy, clip.z + shift * clip.w, clip.w);
    vec3 normal = normalize(in_normal / max(i_half, vec3(1e-4)));
    float light = 0.55 + 0.45 * max(dot(normal, LIGHT), 0.0) - 0.08 * abs(normal.x);
    v_colour = mix(i_colour * light, i_colour, i_glows);
    v_index = int(floor(i_index + 0.5)) + 1;  // walls (-1) become 0, as the background
    v_around_eye = int(all(lessThan(abs(eye - i_centre), i_half)));
}
"""

# What each image's output declares and writes: only the images a renderer was asked for are outputs,
# since llvmpipe pays per pixel for every colour attachment it writes.
OUTPUTS = {
    "rgb": ("vec4 f_colour", "f_colour = vec4(gl_FrontFacing ? v_colour : 0.5 * v_colour, 1.0);"),
    "depth": ("float f_depth", "f_depth = v_depth;"),
    "segmentation": ("int f_index", "f_index = v_index;"),
}

FRAGMENT_SHADER = """
#version 330
in vec3 v_colour;
in float v_depth;
flat in int v_index;
flat in int v_around_eye;
{outputs}
void main() {{
#ifdef OPEN_SHAPES
    // Open shapes are drawn double-sided, so their inside shows (darker) through the opening; but a
    // rough extent can hold the camera itself, and from in there its inside would fill the view.
    if (!gl_FrontFacing && v_around_eye == 1) discard;
#endif
{writes}
}}
"""


def fragment_shader(open_shapes: bool, images: Sequence[str]) -> str:
    """The fragment shader writing `images` (to colour attachments 0, 1, ... in that order); `discard` only
    where needed: it keeps the rasteriser from testing depth early."""
    outputs = "\n".join(f"layout(location = {i}) out {OUTPUTS[image][0]};" for i, image in enumerate(images))
    writes = "\n".join(f"    {OUTPUTS[image][1]}" for image in images)
    source = FRAGMENT_SHADER.format(outputs=outputs, writes=writes)
    return source.replace("#version 330", "#version 330\n#define OPEN_SHAPES") if open_shapes else source


# The same vertex shader drawing many views at once (`render.batch`): each instance row carries its view, whose
# camera (the view-projection's four columns, then the eye) is a row of the texture `views`, and its view's layer
# of a layered framebuffer. What is computed per vertex is unchanged: gl_Layer only picks where it goes.
BATCH_VERTEX_SHADER = (
    VERTEX_SHADER.replace("#version 330\n", "#version 330\n#extension GL_ARB_shader_viewport_layer_array : require\n")
    .replace("uniform mat4 view_projection;\n", "uniform sampler2D views;\nin float i_view;\n")
    .replace("uniform vec3 eye;\n", "")
    .replace(
        "void main() {\n",
        """void main() {
    int view = int(i_view);
    mat4 view_projection = mat4(texelFetch(views, ivec2(0, view), 0), texelFetch(views, ivec2(1, view), 0),
                                texelFetch(views, ivec2(2, view), 0), texelFetch(views, ivec2(3, view), 0));
    vec3 eye = texelFetch(views, ivec2(4, view), 0).xyz;
    gl_Layer = view;
""",
        1,
    )
)
