CREATE TABLE `item` (
  `id` bigint unsigned NOT NULL,
  `owner` int NOT NULL,
  `name` varchar(32) COLLATE utf8mb4_bin NOT NULL COMMENT 'it\'s the (name), UNIQUE',
  `token` varbinary(8) DEFAULT NULL,
  PRIMARY KEY (`id`) USING BTREE,
  UNIQUE KEY `token` (`token`),
  KEY `owner` (`owner`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;
INSERT INTO `item` VALUES