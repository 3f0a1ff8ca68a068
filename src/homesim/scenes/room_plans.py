"""The furniture tables of the procedural rooms: which units (fixed objects that stand together) each room
type has, how many are needed and wanted, and which movable objects fill it. Data, read by `procedural`
(single rooms) and `houses` (rooms of a house)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Part:
    """One fixed object of a unit: its offsets `along` the wall and `out` from it (the unit's centre for a
    free-standing unit), and `y`, the height of its AI2-THOR position (its class's pivot)."""

    cls: str
    along: float
    out: float
    y: float


@dataclass(frozen=True)
class Unit:
    """Fixed objects that stand together; a free-standing unit goes on the floor, the rest against a wall."""

    name: str
    parts: tuple[Part, ...]
    free_standing: bool = False


@dataclass(frozen=True)
class RoomPlan:
    """How to furnish and fill one room type.

    `furniture` lists (unit, needed, wanted): the room is rejected unless `needed` copies fit, and up to
    `wanted` are tried. Every class in `always` is put in the room, and more are sampled from `objects`
    up to a count in `object_classes`."""

    side: tuple[float, float]  # min and max length of a wall, metres
    furniture: tuple[tuple[Unit, int, int], ...]
    always: tuple[str, ...]
    objects: tuple[str, ...]
    object_classes: tuple[int, int] = (10, 25)


def _counter(name: str, *extras: Part) -> Unit:
    """A 1.2 m kitchen counter with a drawer and a cabinet under it, and what stands on or above it."""
    base = (Part("CounterTop", 0.0, 0.35, 0.9), Part("Drawer", -0.3, 0.3, 0.7), Part("Cabinet", 0.3, 0.35, 0.4))
    return Unit(name, base + extras)


FRIDGE = Unit("fridge", (Part("Fridge", 0.0, 0.4, 0.0),))
# The faucet stands right behind the basin: turning a faucet on cleans the closest SinkBasin's contents.
KITCHEN_SINK = Unit(
    "kitchen sink",
    (
        Part("CounterTop", 0.0, 0.35, 0.9),
        Part("Sink", 0.0, 0.45, 0.85),
        Part("SinkBasin", 0.0, 0.45, 0.85),
        Part("Faucet", 0.0, 0.1, 0.9),
        Part("Cabinet", 0.0, 0.35, 0.4),
    ),
)
STOVE = Unit("stove", tuple(Part("StoveBurner", a, o, 0.9) for o in (0.2, 0.5) for a in (-0.2, 0.2)))
COUNTER = _counter("counter", Part("Cabinet", 0.0, 0.3, 1.75))  # with a wall cabinet above
COUNTER_MICROWAVE = _counter("microwave counter", Part("Microwave", 0.25, 0.25, 0.9))
COUNTER_COFFEE = _counter("coffee counter", Part("CoffeeMachine", -0.35, 0.2, 0.9), Part("Toaster", 0.3, 0.15, 0.9))
DINING_TABLE = Unit("dining table", (Part("DiningTable", 0.0, 0.0, 0.0),), free_standing=True)
GARBAGE = Unit("garbage can", (Part("GarbageCan", 0.0, 0.2, 0.0),))

TOILET = Unit("toilet", (Part("Toilet", -0.15, 0.35, 0.0), Part("ToiletPaperHanger", 0.3, 0.05, 0.6)))
VANITY = Unit(
    "vanity",
    (
        Part("CounterTop", 0.0, 0.35, 0.85),
        Part("Sink", 0.0, 0.45, 0.8),
        Part("SinkBasin", 0.0, 0.45, 0.8),
        Part("Faucet", 0.0, 0.1, 0.85),
        Part("Cabinet", 0.0, 0.35, 0.4),
    ),
)
BATHTUB = Unit("bathtub", (Part("Bathtub", 0.0, 0.4, 0.3), Part("BathtubBasin", 0.0, 0.4, 0.35)))
TOWEL_HOLDER = Unit("towel holder", (Part("TowelHolder", 0.0, 0.05, 1.1),))
HAND_TOWEL_HOLDER = Unit("hand towel holder", (Part("HandTowelHolder", 0.0, 0.05, 1.0),))
SHELVES = Unit("shelves", (Part("Shelf", 0.0, 0.2, 0.5), Part("Shelf", 0.0, 0.2, 1.1)))

BED = Unit("bed", (Part("Bed", 0.0, 1.0, 0.0),))
SIDE_TABLE = Unit("side table", (Part("SideTable", 0.0, 0.25, 0.0), Part("Drawer", 0.0, 0.25, 0.5)))
DRESSER = Unit(
    "dresser",
    (
        Part("Dresser", 0.0, 0.25, 0.0),
        Part("Drawer", -0.25, 0.25, 0.65),
        Part("Drawer", 0.25, 0.25, 0.65),
    ),
)
DESK = Unit("desk", (Part("Desk", 0.0, 0.3, 0.0), Part("DeskLamp", 0.4, 0.2, 0.75)))
LAUNDRY_HAMPER = Unit("laundry hamper", (Part("LaundryHamper", 0.0, 0.25, 0.0),))

SOFA = Unit("sofa", (Part("Sofa", 0.0, 0.45, 0.0),))
ARMCHAIR = Unit("armchair", (Part("ArmChair", 0.0, 0.45, 0.0),))
TV = Unit("tv stand", (Part("TVStand", 0.0, 0.2, 0.0), Part("Television", 0.0, 0.15, 0.5)))
FLOOR_LAMP = Unit("floor lamp", (Part("FloorLamp", 0.0, 0.25, 0.0),))
COFFEE_TABLE = Unit("coffee table", (Part("CoffeeTable", 0.0, 0.0, 0.0),), free_standing=True)
OTTOMAN = Unit("ottoman", (Part("Ottoman", 0.0, 0.0, 0.0),), free_standing=True)

ROOM_PLANS: dict[str, RoomPlan] = {
    "Kitchen": RoomPlan(
        side=(3.5, 6.0),
        furniture=(
            (FRIDGE, 1, 1),
            (KITCHEN_SINK, 1, 1),
            (STOVE, 1, 1),
            (COUNTER_MICROWAVE, 1, 1),
            (COUNTER_COFFEE, 1, 1),
            (COUNTER, 1, 3),
            (GARBAGE, 1, 1),
            (DINING_TABLE, 0, 1),
        ),
        always=(
            "Apple",
            "Bread",
            "Lettuce",
            "Potato",
            "Tomato",
            "Knife",
            "ButterKnife",
            "Mug",
            "Bowl",
            "Plate",
            "Pot",
            "Pan",
        ),
        objects=(
            "Egg",
            "Fork",
            "Spoon",
            "Spatula",
            "Ladle",
            "Cup",
            "Kettle",
            "SaltShaker",
            "PepperShaker",
            "DishSponge",
            "SoapBottle",
            "WineBottle",
            "Glassbottle",
            "SprayBottle",
            "CellPhone",
            "CreditCard",
        ),
        object_classes=(15, 25),
    ),
    "Bathroom": RoomPlan(
        side=(3.0, 4.5),
        furniture=(
            (TOILET, 1, 1),
            (VANITY, 1, 1),
            (BATHTUB, 1, 1),
            (TOWEL_HOLDER, 1, 1),
            (GARBAGE, 1, 1),
            (HAND_TOWEL_HOLDER, 0, 1),
            (SHELVES, 0, 1),
        ),
        always=("SoapBar", "SoapBottle", "Towel", "HandTowel", "ToiletPaper", "Cloth", "SprayBottle"),
        objects=("ToiletPaperRoll", "Candle", "TissueBox", "Plunger", "DishSponge", "PaperTowel"),
    ),
    "Bedroom": RoomPlan(
        side=(3.5, 6.0),
        furniture=(
            (BED, 1, 1),
            (SIDE_TABLE, 1, 2),
            (DRESSER, 1, 1),
            (DESK, 1, 1),
            (SHELVES, 1, 1),
            (GARBAGE, 1, 1),
            (LAUNDRY_HAMPER, 0, 1),
        ),
        always=("Book", "CellPhone", "Pillow", "Laptop", "AlarmClock", "Mug", "Bowl", "KeyChain", "CD", "Pencil"),
        objects=(
            "Pen",
            "CreditCard",
            "BaseballBat",
            "BasketBall",
            "TennisRacket",
            "Cup",
            "Plate",
            "Box",
            "Watch",
            "Cloth",
            "TissueBox",
            "Vase",
            "Statue",
            "Candle",
            "Newspaper",
            "RemoteControl",
        ),
    ),
    "LivingRoom": RoomPlan(
        side=(4.0, 6.0),
        furniture=(
            (SOFA, 1, 1),
            (ARMCHAIR, 1, 1),
            (TV, 1, 1),
            (SIDE_TABLE, 1, 2),
            (FLOOR_LAMP, 1, 1),
            (SHELVES, 1, 1),
            (GARBAGE, 1, 1),
            (COFFEE_TABLE, 1, 1),
            (OTTOMAN, 0, 1),
        ),
        always=(
            "RemoteControl",
            "Vase",
            "Statue",
            "Box",
            "KeyChain",
            "CreditCard",
            "Watch",
            "Plate",
            "Bowl",
            "Newspaper",
            "Laptop",
            "Pillow",
        ),
        objects=("Book", "CellPhone", "TissueBox", "Candle", "WateringCan", "Mug", "Pen", "Pencil", "CD", "Cloth"),
    ),
}
