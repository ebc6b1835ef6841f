-- A weapon barrel bone's slot (WeaponFireFXBone, WeaponRecoilBone, WeaponMuzzleFlash,
-- WeaponLaunchBone of an INI draw state): "SLOT NAME...", the slot and all its barrel bone names
-- in that state. Zero Hour looks them up together (W3DModelDraw.cpp, validateWeaponBarrelInfo):
-- NAME01, NAME02, ... while any of them is found, the plain names only when none has a NAME01;
-- a bone's finding depends on the others. NULL for every other reference. Rows written before
-- have none: the INI decoder's version (2) has those files decoded again by the next scan.
ALTER TABLE refs ADD COLUMN slot TEXT;
