CREATE TABLE `big` (
  `id` bigint(20) unsigned NOT NULL,
  `d` decimal(30,2) DEFAULT NULL,
  `f` double DEFAULT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
INSERT INTO `big` VALUES