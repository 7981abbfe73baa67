-- Entity-name vectors are kept as int8 with one float32 scale per vector (knotwork/store/sqlite/scaled.py):
-- half the bytes of float16, with cosines that move by less than 0.004. The store still takes and gives
-- float32; this converts the float16 vectors stored before. knotwork_scaled() is a function the migration
-- runner registers. `knotwork reembed` recomputes every vector from the text.
UPDATE entity_vectors SET vector = knotwork_scaled(vector);
