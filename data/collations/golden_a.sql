/*M!999999\- enable the sandbox mode */ 
-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: localhost    Database: golden_a
-- ------------------------------------------------------
-- Server version	10.11.19-MariaDB-0+deb12u1

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!40101 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;
/*!40103 SET TIME_ZONE='+00:00' */;
/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;
/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;

--
-- Table structure for table `g_binary`
--

DROP TABLE IF EXISTS `g_binary`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `g_binary` (
  `pair` int(11) NOT NULL,
  `v` varbinary(40) DEFAULT NULL,
  UNIQUE KEY `pair_v` (`pair`,`v`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `g_binary`
--

LOCK TABLES `g_binary` WRITE;
/*!40000 ALTER TABLE `g_binary` DISABLE KEYS */;
INSERT INTO `g_binary` VALUES
(0,'Alice'),
(1,'Bob'),
(2,'Bob '),
(3,'abc'),
(4,'abc'),
(5,'é'),
(6,'É'),
(7,'é'),
(8,'ß'),
(9,'ß'),
(10,'ß'),
(11,'😀'),
(12,'😀'),
(13,'a'),
(14,' a'),
(15,''),
(16,'ı'),
(17,'İ'),
(18,'Ǆ'),
(19,'ﬃ'),
(20,'Ａ'),
(21,'Å'),
(22,'æ'),
(23,'А'),
(24,'ü'),
(25,'ü'),
(26,'á'),
(27,'x'),
(28,'a'),
(29,'a'),
(30,'a b'),
(31,'一'),
(32,'가'),
(33,'Alice'),
(34,'abcdef'),
(35,'ab'),
(36,'ééé1');
/*!40000 ALTER TABLE `g_binary` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Table structure for table `g_utf8mb4_bin`
--

DROP TABLE IF EXISTS `g_utf8mb4_bin`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `g_utf8mb4_bin` (
  `pair` int(11) NOT NULL,
  `v` varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL,
  UNIQUE KEY `pair_v` (`pair`,`v`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `g_utf8mb4_bin`
--

LOCK TABLES `g_utf8mb4_bin` WRITE;
/*!40000 ALTER TABLE `g_utf8mb4_bin` DISABLE KEYS */;
INSERT INTO `g_utf8mb4_bin` VALUES
(0,'Alice'),
(1,'Bob'),
(2,'Bob '),
(3,'abc'),
(4,'abc'),
(5,'é'),
(6,'É'),
(7,'é'),
(8,'ß'),
(9,'ß'),
(10,'ß'),
(11,'😀'),
(12,'😀'),
(13,'a'),
(14,' a'),
(15,''),
(16,'ı'),
(17,'İ'),
(18,'Ǆ'),
(19,'ﬃ'),
(20,'Ａ'),
(21,'Å'),
(22,'æ'),
(23,'А'),
(24,'ü'),
(25,'ü'),
(26,'á'),
(27,'x'),
(28,'a'),
(29,'a'),
(30,'a b'),
(31,'一'),
(32,'가'),
(33,'Alice'),
(34,'abcdef'),
(35,'ab'),
(36,'ééé1');
/*!40000 ALTER TABLE `g_utf8mb4_bin` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Table structure for table `g_utf8mb4_general_ci`
--

DROP TABLE IF EXISTS `g_utf8mb4_general_ci`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `g_utf8mb4_general_ci` (
  `pair` int(11) NOT NULL,
  `v` varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci DEFAULT NULL,
  UNIQUE KEY `pair_v` (`pair`,`v`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `g_utf8mb4_general_ci`
--

LOCK TABLES `g_utf8mb4_general_ci` WRITE;
/*!40000 ALTER TABLE `g_utf8mb4_general_ci` DISABLE KEYS */;
INSERT INTO `g_utf8mb4_general_ci` VALUES
(0,'Alice'),
(1,'Bob'),
(2,'Bob '),
(3,'abc'),
(4,'abc'),
(5,'é'),
(6,'É'),
(7,'é'),
(8,'ß'),
(9,'ß'),
(10,'ß'),
(11,'😀'),
(12,'😀'),
(13,'a'),
(14,' a'),
(15,''),
(16,'ı'),
(17,'İ'),
(18,'Ǆ'),
(19,'ﬃ'),
(20,'Ａ'),
(21,'Å'),
(22,'æ'),
(23,'А'),
(24,'ü'),
(25,'ü'),
(26,'á'),
(27,'x'),
(28,'a'),
(29,'a'),
(30,'a b'),
(31,'一'),
(32,'가'),
(33,'Alice'),
(34,'abcdef'),
(35,'ab'),
(36,'ééé1');
/*!40000 ALTER TABLE `g_utf8mb4_general_ci` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Table structure for table `g_utf8mb4_general_ci_p3`
--

DROP TABLE IF EXISTS `g_utf8mb4_general_ci_p3`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `g_utf8mb4_general_ci_p3` (
  `pair` int(11) NOT NULL,
  `v` varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci DEFAULT NULL,
  UNIQUE KEY `pair_v` (`pair`,`v`(3))
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `g_utf8mb4_general_ci_p3`
--

LOCK TABLES `g_utf8mb4_general_ci_p3` WRITE;
/*!40000 ALTER TABLE `g_utf8mb4_general_ci_p3` DISABLE KEYS */;
INSERT INTO `g_utf8mb4_general_ci_p3` VALUES
(0,'Alice'),
(1,'Bob'),
(2,'Bob '),
(3,'abc'),
(4,'abc'),
(5,'é'),
(6,'É'),
(7,'é'),
(8,'ß'),
(9,'ß'),
(10,'ß'),
(11,'😀'),
(12,'😀'),
(13,'a'),
(14,' a'),
(15,''),
(16,'ı'),
(17,'İ'),
(18,'Ǆ'),
(19,'ﬃ'),
(20,'Ａ'),
(21,'Å'),
(22,'æ'),
(23,'А'),
(24,'ü'),
(25,'ü'),
(26,'á'),
(27,'x'),
(28,'a'),
(29,'a'),
(30,'a b'),
(31,'一'),
(32,'가'),
(33,'Alice'),
(34,'abcdef'),
(35,'ab'),
(36,'ééé1');
/*!40000 ALTER TABLE `g_utf8mb4_general_ci_p3` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Table structure for table `g_utf8mb4_nopad_bin`
--

DROP TABLE IF EXISTS `g_utf8mb4_nopad_bin`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `g_utf8mb4_nopad_bin` (
  `pair` int(11) NOT NULL,
  `v` varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin DEFAULT NULL,
  UNIQUE KEY `pair_v` (`pair`,`v`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `g_utf8mb4_nopad_bin`
--

LOCK TABLES `g_utf8mb4_nopad_bin` WRITE;
/*!40000 ALTER TABLE `g_utf8mb4_nopad_bin` DISABLE KEYS */;
INSERT INTO `g_utf8mb4_nopad_bin` VALUES
(0,'Alice'),
(1,'Bob'),
(2,'Bob '),
(3,'abc'),
(4,'abc'),
(5,'é'),
(6,'É'),
(7,'é'),
(8,'ß'),
(9,'ß'),
(10,'ß'),
(11,'😀'),
(12,'😀'),
(13,'a'),
(14,' a'),
(15,''),
(16,'ı'),
(17,'İ'),
(18,'Ǆ'),
(19,'ﬃ'),
(20,'Ａ'),
(21,'Å'),
(22,'æ'),
(23,'А'),
(24,'ü'),
(25,'ü'),
(26,'á'),
(27,'x'),
(28,'a'),
(29,'a'),
(30,'a b'),
(31,'一'),
(32,'가'),
(33,'Alice'),
(34,'abcdef'),
(35,'ab'),
(36,'ééé1');
/*!40000 ALTER TABLE `g_utf8mb4_nopad_bin` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Table structure for table `g_utf8mb4_uca1400_ai_ci`
--

DROP TABLE IF EXISTS `g_utf8mb4_uca1400_ai_ci`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `g_utf8mb4_uca1400_ai_ci` (
  `pair` int(11) NOT NULL,
  `v` varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci DEFAULT NULL,
  UNIQUE KEY `pair_v` (`pair`,`v`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `g_utf8mb4_uca1400_ai_ci`
--

LOCK TABLES `g_utf8mb4_uca1400_ai_ci` WRITE;
/*!40000 ALTER TABLE `g_utf8mb4_uca1400_ai_ci` DISABLE KEYS */;
INSERT INTO `g_utf8mb4_uca1400_ai_ci` VALUES
(0,'Alice'),
(1,'Bob'),
(2,'Bob '),
(3,'abc'),
(4,'abc'),
(5,'é'),
(6,'É'),
(7,'é'),
(8,'ß'),
(9,'ß'),
(10,'ß'),
(11,'😀'),
(12,'😀'),
(13,'a'),
(14,' a'),
(15,''),
(16,'ı'),
(17,'İ'),
(18,'Ǆ'),
(19,'ﬃ'),
(20,'Ａ'),
(21,'Å'),
(22,'æ'),
(23,'А'),
(24,'ü'),
(25,'ü'),
(26,'á'),
(27,'x'),
(28,'a'),
(29,'a'),
(30,'a b'),
(31,'一'),
(32,'가'),
(33,'Alice'),
(34,'abcdef'),
(35,'ab'),
(36,'ééé1');
/*!40000 ALTER TABLE `g_utf8mb4_uca1400_ai_ci` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Table structure for table `g_utf8mb4_uca1400_as_ci`
--

DROP TABLE IF EXISTS `g_utf8mb4_uca1400_as_ci`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `g_utf8mb4_uca1400_as_ci` (
  `pair` int(11) NOT NULL,
  `v` varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_as_ci DEFAULT NULL,
  UNIQUE KEY `pair_v` (`pair`,`v`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `g_utf8mb4_uca1400_as_ci`
--

LOCK TABLES `g_utf8mb4_uca1400_as_ci` WRITE;
/*!40000 ALTER TABLE `g_utf8mb4_uca1400_as_ci` DISABLE KEYS */;
INSERT INTO `g_utf8mb4_uca1400_as_ci` VALUES
(0,'Alice'),
(1,'Bob'),
(2,'Bob '),
(3,'abc'),
(4,'abc'),
(5,'é'),
(6,'É'),
(7,'é'),
(8,'ß'),
(9,'ß'),
(10,'ß'),
(11,'😀'),
(12,'😀'),
(13,'a'),
(14,' a'),
(15,''),
(16,'ı'),
(17,'İ'),
(18,'Ǆ'),
(19,'ﬃ'),
(20,'Ａ'),
(21,'Å'),
(22,'æ'),
(23,'А'),
(24,'ü'),
(25,'ü'),
(26,'á'),
(27,'x'),
(28,'a'),
(29,'a'),
(30,'a b'),
(31,'一'),
(32,'가'),
(33,'Alice'),
(34,'abcdef'),
(35,'ab'),
(36,'ééé1');
/*!40000 ALTER TABLE `g_utf8mb4_uca1400_as_ci` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Table structure for table `g_utf8mb4_uca1400_nopad_ai_ci`
--

DROP TABLE IF EXISTS `g_utf8mb4_uca1400_nopad_ai_ci`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `g_utf8mb4_uca1400_nopad_ai_ci` (
  `pair` int(11) NOT NULL,
  `v` varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_nopad_ai_ci DEFAULT NULL,
  UNIQUE KEY `pair_v` (`pair`,`v`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `g_utf8mb4_uca1400_nopad_ai_ci`
--

LOCK TABLES `g_utf8mb4_uca1400_nopad_ai_ci` WRITE;
/*!40000 ALTER TABLE `g_utf8mb4_uca1400_nopad_ai_ci` DISABLE KEYS */;
INSERT INTO `g_utf8mb4_uca1400_nopad_ai_ci` VALUES
(0,'Alice'),
(1,'Bob'),
(2,'Bob '),
(3,'abc'),
(4,'abc'),
(5,'é'),
(6,'É'),
(7,'é'),
(8,'ß'),
(9,'ß'),
(10,'ß'),
(11,'😀'),
(12,'😀'),
(13,'a'),
(14,' a'),
(15,''),
(16,'ı'),
(17,'İ'),
(18,'Ǆ'),
(19,'ﬃ'),
(20,'Ａ'),
(21,'Å'),
(22,'æ'),
(23,'А'),
(24,'ü'),
(25,'ü'),
(26,'á'),
(27,'x'),
(28,'a'),
(29,'a'),
(30,'a b'),
(31,'一'),
(32,'가'),
(33,'Alice'),
(34,'abcdef'),
(35,'ab'),
(36,'ééé1');
/*!40000 ALTER TABLE `g_utf8mb4_uca1400_nopad_ai_ci` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Table structure for table `g_utf8mb4_unicode_ci`
--

DROP TABLE IF EXISTS `g_utf8mb4_unicode_ci`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `g_utf8mb4_unicode_ci` (
  `pair` int(11) NOT NULL,
  `v` varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci DEFAULT NULL,
  UNIQUE KEY `pair_v` (`pair`,`v`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `g_utf8mb4_unicode_ci`
--

LOCK TABLES `g_utf8mb4_unicode_ci` WRITE;
/*!40000 ALTER TABLE `g_utf8mb4_unicode_ci` DISABLE KEYS */;
INSERT INTO `g_utf8mb4_unicode_ci` VALUES
(0,'Alice'),
(1,'Bob'),
(2,'Bob '),
(3,'abc'),
(4,'abc'),
(5,'é'),
(6,'É'),
(7,'é'),
(8,'ß'),
(9,'ß'),
(10,'ß'),
(11,'😀'),
(12,'😀'),
(13,'a'),
(14,' a'),
(15,''),
(16,'ı'),
(17,'İ'),
(18,'Ǆ'),
(19,'ﬃ'),
(20,'Ａ'),
(21,'Å'),
(22,'æ'),
(23,'А'),
(24,'ü'),
(25,'ü'),
(26,'á'),
(27,'x'),
(28,'a'),
(29,'a'),
(30,'a b'),
(31,'一'),
(32,'가'),
(33,'Alice'),
(34,'abcdef'),
(35,'ab'),
(36,'ééé1');
/*!40000 ALTER TABLE `g_utf8mb4_unicode_ci` ENABLE KEYS */;
UNLOCK TABLES;
/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;

/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;
/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;
/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;

-- Dump completed
