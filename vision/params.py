"""The scanner's hand-set numbers: the pipeline's own and, passed down, each stage's."""

from __future__ import annotations

from dataclasses import dataclass

from vision.learn.improvise import IMPROVISE_PARAMS, ImproviseParams
from vision.learn.pieces import PIECE_PARAMS, PieceParams
from vision.locate.register import ART_MATCH_PARAMS, REGISTER_PARAMS, ArtMatchParams, RegisterParams
from vision.read.assemble import ASSEMBLE_PARAMS, AssembleParams
from vision.read.cells import CELL_PARAMS, CellParams
from vision.read.emblems import EMBLEM_PARAMS, EmblemParams
from vision.read.frame import FRAME_PARAMS, FrameParams
from vision.read.glare import GLARE_PARAMS, GlareParams
from vision.read.numerals import NUMERAL_PARAMS, NumeralParams
from vision.read.rectify import RECTIFY_PARAMS, RectifyParams
from vision.read.sharpness import SHARPNESS_PARAMS, SharpnessParams
from vision.read.slots import SLOT_PARAMS, SlotParams
from vision.read.tokens import TOKEN_PARAMS, TokenParams
from vision.texture import TEXTURE_PARAMS, TextureParams


@dataclass(frozen=True)
class ScanParams:
    """The pipeline's hand-set numbers, and each stage's own that it passes down."""

    #: Fewer patches of the art than this agreeing on the board's place (:mod:`vision.locate.register`),
    #: and the slower ways of finding the board are tried too; on the tuning photos a board found
    #: right had at least 59.
    confident_patches: int = 45
    #: Fewer than this agreeing even then, and the art is not the looks': another copy whose frame
    #: the features matched. On the tuning photos the reference kit's boards had at least 59 and
    #: other copies found by its features at most 13.
    art_matched_patches: int = 30
    #: The gold's layouts tried before the slow features, which cost less than the rest of the
    #: gold and grid's search where that finds nothing (2 to 5 s on the tuning photos). On the tuning
    #: photos of both worlds that the fast features missed (with 46 raster copies), 72 of the 75
    #: boards the gold found locked within its first 3 layouts, the others by the 5th and 8th, and
    #: the slow features found those 3.
    first_gold_tries: int = 3
    #: A board found by its gold and grid is the reference kit when the art inside its cells matches
    #: the reference face by at least this much more than chance does (a difference of correlations,
    #: :func:`vision.locate.register.art_match`): another copy's art matches it by chance alone.
    #: On the tuning photos of both worlds the reference kit matched by 0.164 at the least, other
    #: copies by 0.096 at the most: the margin lies between.
    art_match_margin: float = 0.13
    #: Cells at least this likely to hold a warrior have its colour weighed by the warriors' pictures.
    maybe_occupied: float = 0.05
    #: Cells the face reads as empty, or as holding a token, with at least this much doubt at most.
    sure_empty: float = 0.05
    #: A hidden gold cell's pixel is gold when this near the gold's colour; a token shows this share
    #: of its cell's disc as gold at least.
    gold_near: float = 0.25
    gold_full_share: float = 0.4
    #: How sharply a better warrior match (normalised correlation) makes its colour the likelier, and
    #: how much the colour votes count beside it (chosen on the tuning copies).
    token_match_weight: float = 20.0
    vote_power: float = 0.5
    #: How sharply a larger share of pixels near a colour (:attr:`vision.read.cells.CellSigns.near`)
    #: makes it the likelier (chosen on the tuning copies).
    near_weight: float = 5.0
    # Each stage's own, passed down to it. (Finding the board by features keeps its module's
    # defaults, FeatureParams, and by gold and grid GridParams' but for the first layouts tried:
    # the tests stand in for those stages with functions of their old signatures.)
    register: RegisterParams = REGISTER_PARAMS
    art: ArtMatchParams = ART_MATCH_PARAMS
    improvise: ImproviseParams = IMPROVISE_PARAMS
    rectify: RectifyParams = RECTIFY_PARAMS
    sharpness: SharpnessParams = SHARPNESS_PARAMS
    texture: TextureParams = TEXTURE_PARAMS
    slots: SlotParams = SLOT_PARAMS
    cells: CellParams = CELL_PARAMS
    emblems: EmblemParams = EMBLEM_PARAMS
    tokens: TokenParams = TOKEN_PARAMS
    pieces: PieceParams = PIECE_PARAMS
    assemble: AssembleParams = ASSEMBLE_PARAMS
    glare: GlareParams = GLARE_PARAMS
    frame: FrameParams = FRAME_PARAMS
    numerals: NumeralParams = NUMERAL_PARAMS


SCAN_PARAMS = ScanParams()
