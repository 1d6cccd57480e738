CREATE TABLE `we``ird` (
  `a``b` int(11) NOT NULL,
  `select` text DEFAULT NULL,
  PRIMARY KEY (`a``b`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
INSERT INTO `we``ird` VALUES