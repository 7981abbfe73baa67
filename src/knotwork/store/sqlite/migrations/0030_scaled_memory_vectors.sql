-- Memory (passage) vectors are kept as int8 with one float32 scale per vector, as entity-name vectors
-- since 0029 (knotwork/store/sqlite/scaled.py): half the bytes of float16, with a cosine that moves by
-- about 1e-3. The store still takes and gives float32; this converts the float16 vectors stored before.
-- knotwork_scaled() is a function the migration runner registers. `knotwork reembed` recomputes every
-- vector from the text.
UPDATE memory_vectors SET vector = knotwork_scaled(vector);
